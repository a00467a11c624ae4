"""The app under a real terminal: SIGTERM and SIGHUP quit as the keyboard would, terminal restored."""

from __future__ import annotations

import os
import pty
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from passk_tui.store import DB_NAME
from tests.support import APP_AGENTS
from tests.support.processes import LEAVE_ALT_SCREEN, read_until

AGENTS = APP_AGENTS


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_withdraws_the_runs_and_restores_the_terminal(
    tmp_path: Path, signum: int, code: int
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    env.update(PASSK_DATA_DIR=str(tmp_path), PASSK_TEST_STATE=str(tmp_path), TERM="xterm")
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), COLUMNS="100", LINES="30")
    controller, terminal = pty.openpty()
    args = ["--agent", "scripted", "--version", "1", "--cases", "blocking.toml"]
    process = subprocess.Popen(
        [sys.executable, "-m", "passk_tui", *args, "--attempts", "3", "--concurrency", "2"],
        stdin=terminal, stdout=terminal, stderr=terminal, cwd=AGENTS, env=env,
    )  # fmt: skip
    os.close(terminal)
    try:
        database = tmp_path / DB_NAME
        give_up = time.monotonic() + 30
        while True:  # quick's two attempts in, stuck's two in flight
            read_until(controller, b"\x00", 0.1)  # keep the terminal drained
            assert process.poll() is None and time.monotonic() < give_up
            if database.exists():
                with sqlite3.connect(database, timeout=5) as db:
                    try:
                        if db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] >= 2:
                            break
                    except sqlite3.OperationalError:
                        pass
        time.sleep(0.5)
        process.send_signal(signum)
        tail = read_until(controller, LEAVE_ALT_SCREEN, 20)
        assert process.wait(timeout=20) == code
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    assert LEAVE_ALT_SCREEN in tail
    with sqlite3.connect(database) as db:
        outcomes = dict(db.execute("SELECT outcome, COUNT(*) FROM attempts GROUP BY outcome"))
    assert outcomes == {"passed": 2, "withdrawn": 2}
