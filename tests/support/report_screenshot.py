"""Make the docs' screenshot of the HTML report (docs/sharing.md): the demo's report in Debian's headless chromium.

    python -m tests.support.report_screenshot [PNG]      (default: screenshots/report.png)

Runs the bundled demo headless as docs/sharing.md says (``--attempts 10 --require 0.9``) in a
store of its own, from the repository root, until a run's gate fails (the demo is random;
a failing gate shows a named case in the verdict) with some attempt errored, exports ``report.html``, opens it from
disk and saves the top of the page. Run it after changing the report's look, then look at
the picture.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support import ROOT
from tests.support.chromium import start_chromium

DEFAULT = ROOT / "screenshots" / "report.png"
#: The sharing page's picture: the whole table wide, from the title to the table's note (the
#: settings below it would show this machine's folders).
WINDOW = "1200,860"
#: Demo runs tried for one whose gate fails (exit 1).
TRIES = 8
GATE_FAILED = 1


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    with tempfile.TemporaryDirectory(prefix="passk-report-shot-") as tmp:
        report = Path(tmp) / "report.html"
        env = {**os.environ, "PASSK_DATA_DIR": tmp, "PYTHONPATH": str(ROOT)}
        demo = ["--demo", "--headless", "--attempts", "10", "--require", "0.9"]
        for _ in range(TRIES):
            done = subprocess.run(
                [sys.executable, "-m", "passk_tui", *demo, "--export", str(report)],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            if done.returncode == GATE_FAILED and "errored some" in report.read_text("utf-8"):
                break
        if not report.exists():
            print(done.stderr, file=sys.stderr)
            return 1
        driver = start_chromium(Path(tmp) / "chromium", window=WINDOW)
        try:
            driver.get(report.as_uri())
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
