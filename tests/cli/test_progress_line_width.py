"""The headless progress line fits the terminal it redraws on, however narrow."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from passk_tui.cli.live import fit_to_width
from tests.support.processes import read_until

LINE = "10/100 attempts  2 in flight  4.3/s  passed 6  wrong 2  errored 2  0:02  ~0:20 left"


def test_a_line_that_fits_is_left_as_it_is() -> None:
    assert fit_to_width(LINE, 120) == LINE


def test_a_narrow_terminal_closes_the_gaps_then_drops_the_rate_then_cuts_at_a_word() -> None:
    closed = fit_to_width(LINE, 80)
    assert closed == " ".join(LINE.split()) and len(closed) < 80
    assert fit_to_width(LINE, 75) == LINE.replace("  ", " ").replace(" 4.3/s", "")
    cut = fit_to_width(LINE, 40)
    assert cut == "10/100 attempts 2 in flight passed 6…"


def test_each_redraw_on_an_80_column_terminal_stays_on_its_row(tmp_path: Path) -> None:
    """stderr on a pty 80 columns wide: no redraw of the line is 80 characters or more
    (one that is wraps, and every tenth of a second would leave a row behind)."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    env["PASSK_DATA_DIR"] = str(tmp_path / "store")
    argv = [sys.executable, "-m", "passk_tui", "--headless", "--demo", "--attempts", "4"]
    argv += ["--concurrency", "4", "--budget-runs", "16"]  # the longest line: with its budget
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal, env=env
    )
    os.close(terminal)
    try:
        seen = read_until(controller, b"\x00never\x00", 60).decode("utf-8", "replace")
    finally:
        os.close(controller)
        process.communicate(timeout=60)
    # Every redraw starts by clearing its row; so does the end, which clears the last redraw
    # for the summary lines. The text after the last clear is that summary, not a redraw
    # (its lines may be any length: they end in a newline and scroll, as they should).
    *redraws, summary = seen.split("\r\x1b[K")[1:]
    assert all(line.startswith("passk-tui: ") for line in summary.splitlines())
    assert len(redraws) > 3 and any("(Run budget)" in line for line in redraws)
    assert not [line for line in redraws if "\n" in line or "\r" in line]
    assert max(len(line) for line in redraws) < 80
