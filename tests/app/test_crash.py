"""An exception that ends the app ends the process non-zero, its message in one line on stderr."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT
from tests.support.processes import LEAVE_ALT_SCREEN, read_until

#: The app as `passk-tui` opens it, but its first screen's stylesheet is missing: the
#: StylesheetError an install without the screens' .tcss raised.
BROKEN_APP = (
    "import sys\n"
    "from passk_tui.tui.screens.configure.screen import ConfigureScreen\n"
    "ConfigureScreen.CSS_PATH = 'no-such-file.tcss'\n"
    "from passk_tui.cli.main import main\n"
    "sys.exit(main([]))\n"
)


def test_a_screen_that_fails_ends_the_app_with_exit_3_and_says_why(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    env.update(PASSK_DATA_DIR=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    env.update(TERM="xterm", COLUMNS="100", LINES="30", PYTHONPATH=str(ROOT))
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", BROKEN_APP],
        stdin=terminal, stdout=terminal, stderr=terminal, cwd=tmp_path, env=env,
    )  # fmt: skip
    os.close(terminal)
    try:
        seen = read_until(controller, LEAVE_ALT_SCREEN, 30)
        # What it says once the terminal is back, read to the end (EOF): a child whose
        # traceback fills an unread pty would block on its write, never to exit.
        seen += read_until(controller, b"\x00", 30)
        status = process.wait(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    after = seen.rpartition(LEAVE_ALT_SCREEN)[2].decode(errors="replace")
    lines = [line for line in after.splitlines() if line.startswith("passk-tui:")]
    assert status == 3
    assert len(lines) == 1 and lines[0].startswith(
        "passk-tui: the app stopped on an error: StylesheetError: "
    )
    assert "no-such-file.tcss" in lines[0]
