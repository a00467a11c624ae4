"""The terminal closing mid-run (ssh drop, closed tab, tmux killed): both faces stop as SIGHUP does.

Before, the app never exited: Textual's writer thread died of EIO on the dead
terminal, its queue filled and the next write blocked the app's loop forever.
The headless face ran on unseen (often no SIGHUP comes), then failed writing
its table.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import sqlite3
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from passk_tui.store import DB_NAME, Store
from tests.support import AGENTS
from tests.support.cli import finish, start
from tests.support.processes import gone, kill_quietly, read_until

HELD = AGENTS / "held.py"
CASES = """\
[[cases]]
name = "alpha"
input = "alpha"
check = { equals = "alpha" }

[[cases]]
name = "beta"
input = "beta"
check = { equals = "beta" }
"""
RESUMED = """\
case   passed  wrong  errored  pass@1  pass@2  all passed
-----  ------  -----  -------  ------  ------  ----------
alpha  2/2     0      0        1.00    1.00    yes
beta   2/2     0      0        1.00    1.00    yes
"""


def take_terminal() -> None:
    """In the child, a session leader already: make the pty its controlling terminal, as a
    login shell's is, so that closing it sends the kernel's SIGHUP and SIGCONT."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def held_agent(tmp_path: Path) -> tuple[Path, Path]:
    """An agents file whose one version waits on ``state/release``; (agents file, state)."""
    state = tmp_path / "state"
    (state / "pids").mkdir(parents=True)
    command = json.dumps([sys.executable, str(HELD), str(state)])
    agents = tmp_path / "agents.toml"
    agents.write_text(f"[agents.held.versions.1]\ncommand = {command}\n")
    return agents, state


def on_a_pty(
    args: list[str], tmp_path: Path, controlling: bool
) -> tuple[subprocess.Popen[bytes], int]:
    """passk-tui with ``args`` on a fresh pty, its data under ``tmp_path``: (process, master)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    env.update(PASSK_DATA_DIR=str(tmp_path / "data"), TERM="xterm", COLUMNS="100", LINES="30")
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"))
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "passk_tui", *args],
        stdin=terminal, stdout=terminal, stderr=terminal, env=env, start_new_session=True,
        preexec_fn=take_terminal if controlling else None,
    )  # fmt: skip
    os.close(terminal)
    return process, controller


def hang_up(process: subprocess.Popen[bytes], controller: int, drain: float) -> None:
    """Read the terminal for ``drain`` seconds, close it: the process exits 129 within 5 s."""
    read_until(controller, b"\x00", drain)
    closed = time.monotonic()
    os.close(controller)
    assert process.wait(timeout=10) == 129
    assert time.monotonic() - closed < 5


@pytest.mark.parametrize("face", [[], ["--headless"]], ids=["app", "headless"])
@pytest.mark.parametrize("controlling", [True, False], ids=["hung-up", "master-closed"])
def test_closing_the_terminal_withdraws_kills_the_agents_and_exits_129(
    tmp_path: Path, controlling: bool, face: list[str]
) -> None:
    agents, state = held_agent(tmp_path)
    cases = tmp_path / "cases.toml"
    cases.write_text(CASES)
    data = tmp_path / "data"
    args = [*face, "--agents", str(agents), "--agent", "held", "--version", "1"]
    args += ["--cases", str(cases), "--attempts", "2", "--concurrency", "4"]
    process, controller = on_a_pty(args, tmp_path, controlling)
    pids: list[int] = []
    try:
        give_up = time.monotonic() + 30
        while len(pids) < 4:  # all four attempts in flight, their agents waiting
            read_until(controller, b"\x00", 0.1)  # keep the terminal drained
            assert process.poll() is None and time.monotonic() < give_up
            pids = [int(p.name) for p in (state / "pids").iterdir()]
        hang_up(process, controller, drain=0.3)
        controller = -1
    finally:
        if process.poll() is None:
            process.kill()
        if controller >= 0:
            os.close(controller)
        kill_quietly(*(pid for pid in pids if not gone(pid)))
    assert all(gone(pid) for pid in pids)  # the agents' processes died with the stop
    with sqlite3.connect(data / DB_NAME) as db:
        outcomes = dict(db.execute("SELECT outcome, COUNT(*) FROM attempts GROUP BY outcome"))
    assert outcomes == {"withdrawn": 4}

    (state / "release").touch()
    status, out, err = finish(start("--resume", "last", data=data, key=None))
    assert status == 0, err
    assert out == RESUMED  # the withdrawn attempts ran again, counted once each
    assert len(list((state / "pids").iterdir())) == 8
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        stored = store.load(summary.id)
    assert summary.status == "done" and len(stored.withdrawn) == 4


def test_closing_the_terminal_of_an_idle_app_ends_it(tmp_path: Path) -> None:
    """On Configure nothing is written that could fail, and the closed terminal reads as
    end of file (no error) forever: the driver's own look at the terminal ends the app."""
    process, controller = on_a_pty([], tmp_path, controlling=False)
    try:
        assert b"configure an evaluation" in read_until(controller, b"configure an evaluation", 30)
        hang_up(process, controller, drain=0.5)
        controller = -1
    finally:
        if process.poll() is None:
            process.kill()
        if controller >= 0:
            os.close(controller)
