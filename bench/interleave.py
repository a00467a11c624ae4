"""`--baseline` under a slow spell: do both versions advance together when the stack slows?

Runs ``passk-tui --baseline 1 --version 2`` (5 cases x 40 attempts each, concurrency 4)
against the test stack, whose Turns go from 0.02 s to 0.3 s two seconds in, and samples
the store four times a second: how many attempts each version has finished, and the
largest gap between them while running. Usage: ``PYTHONPATH=. python bench/interleave.py``.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.stack_server import StackScript, StackServer, TurnScript

CASES = 5
ATTEMPTS = 40
SLOW_AFTER = 2.0


def finished_per_version(db_path: Path) -> tuple[int, int] | None:
    """Attempts stored per evaluation, baseline then candidate; None before both exist."""
    if not db_path.exists():
        return None
    try:
        with sqlite3.connect(db_path, timeout=5) as db:
            rows = db.execute(
                "SELECT e.version, COUNT(a.attempt) FROM evaluations e LEFT JOIN attempts a"
                " ON a.evaluation_id = e.id GROUP BY e.id ORDER BY e.version"
            ).fetchall()
    except sqlite3.OperationalError:
        return None
    return (rows[0][1], rows[1][1]) if len(rows) == 2 else None


def main() -> None:
    data = Path(tempfile.mkdtemp(prefix="passk-interleave-"))
    cases = data / "cases.toml"
    cases.write_text(
        "".join(
            f'[[cases]]\nname = "c{i}"\ninput = "c{i}"\ncheck = {{ equals = "c{i}" }}\n'
            for i in range(CASES)
        )
    )
    fast = StackScript(default=TurnScript(latency=0.02))
    with StackServer(keys={"k": None}, script=fast) as stack:
        env = {**os.environ, "PASSK_DATA_DIR": str(data), "PASSK_KEY": "k"}
        argv = [
            *(sys.executable, "-m", "passk_tui", "--headless", "--stack", stack.url),
            *("--agent", "demo", "--version", "2", "--baseline", "1", "--cases", str(cases)),
            *("--attempts", str(ATTEMPTS), "--concurrency", "4"),
        ]
        process = subprocess.Popen(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        start = time.monotonic()
        slowed = False
        samples: list[tuple[float, int, int]] = []
        while process.poll() is None:
            now = time.monotonic() - start
            if not slowed and now > SLOW_AFTER:
                stack.config.script = StackScript(default=TurnScript(latency=0.3))
                slowed = True
            counts = finished_per_version(data / "passk.db")
            if counts is not None:
                samples.append((now, *counts))
            time.sleep(0.25)
    print(f"{CASES} cases x {ATTEMPTS} attempts per version, Turns 0.02 s then 0.3 s")
    print(f"exit {process.returncode}; {len(samples)} samples over {samples[-1][0]:.1f} s")
    print(
        "largest gap between the versions' finished attempts:",
        max(abs(a - b) for _, a, b in samples),
    )
    for t, a, b in samples[:: max(1, len(samples) // 8)]:
        print(f"  {t:5.1f} s  A {a:3d}  B {b:3d}")


if __name__ == "__main__":
    main()
