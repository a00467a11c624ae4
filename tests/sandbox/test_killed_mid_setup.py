"""The process that starts a sandbox, SIGKILLed at any instant of its setup, leaves no sandbox
process behind: the host's ``kill -9`` of passk-tui, or Ray killing a worker.

None of our code runs then, so this is the kernel's doing (core/sandbox/tether.py). A
small parent process starts a sandboxed program that never ends by itself, and is killed
a little later each round, 0 to 30 ms after its first child appears, while bwrap makes
the walls; whatever still runs with the round's mark (unshare, bwrap, its init, the
program) was left behind. Before the tether, about half the rounds left some.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.sandbox.test_walls import _processes_marked
from tests.support.processes import gone, kill_quietly

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")

#: Kills per case, each one STEP later after the parent's first child appeared.
ROUNDS = 40
STEP = 0.00075
#: How long a killed sandbox may take to be gone (it takes milliseconds).
SETTLE = 3.0

#: Starts the sandboxed program given on stdin (as JSON, so that its mark is not on this
#: process's own command line) and waits for it.
PARENT = """
import asyncio, json, sys
from pathlib import Path
from passk_tui.core.sandbox.room import Sandbox
from passk_tui.core.sandbox.settings import SandboxSettings
folder, argv = json.loads(sys.stdin.readline())
asyncio.run(Sandbox(SandboxSettings(), Path(folder), argv[0]).run(argv, b"", 60))
"""

#: Who starts the sandbox: us, or (when we are root) nobody, who makes it in a user
#: namespace of its own.
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """A working folder anyone may read (the parent may run as nobody)."""
    made = Path(tempfile.mkdtemp(prefix="passk-killed-"))
    made.chmod(0o755)
    (made / "notes.txt").write_text("a file to copy\n")
    yield made
    shutil.rmtree(made)


def _shell(mark: str) -> list[str]:
    """A program that never ends by itself, reachable by nobody (bwrap then runs as nobody)."""
    return ["/bin/sh", "-c", "cat >/dev/null; sleep 600; exit", mark]


def _interpreter(mark: str) -> list[str]:
    """Ours: under /root on a root CI, where bwrap must run as root to reach it."""
    return [sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(600)", mark]


def _kill_at(delay: float, folder: Path, argv: list[str], prefix: list[str]) -> None:
    """Start the parent, and SIGKILL it ``delay`` seconds after its first child appears."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    parent = subprocess.Popen(
        [*prefix, sys.executable, "-c", PARENT], stdin=subprocess.PIPE, env=env
    )
    assert parent.stdin is not None
    parent.stdin.write(json.dumps([str(folder), argv]).encode() + b"\n")
    parent.stdin.close()
    give_up = time.monotonic() + 60
    while not _children(parent.pid):
        assert parent.poll() is None, f"the parent ended by itself ({parent.returncode})"
        assert time.monotonic() < give_up, "the sandbox never started"
    time.sleep(delay)
    parent.kill()
    parent.wait()


def _children(pid: int) -> str:
    """``pid``'s children, as /proc lists them ('' when it has none or is gone)."""
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().strip()
    except OSError:
        return ""


def _left(mark: str) -> list[int]:
    """The round's processes still running once a killed sandbox has had time to go."""
    give_up = time.monotonic() + SETTLE
    while True:
        left = [pid for pid in _processes_marked(mark) if not gone(pid)]
        if not left or time.monotonic() > give_up:
            return left
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("program", "as_nobody"),
    [(_shell, False), (_interpreter, False), (_shell, True)],
    ids=["shell", "interpreter", "started-by-nobody"],
)
def test_killed_while_its_sandbox_is_made_it_leaves_nothing(
    folder: Path, program: Callable[[str], list[str]], as_nobody: bool
) -> None:
    if as_nobody and os.geteuid() != 0:
        pytest.skip("run as root to start the sandbox as nobody")
    left: dict[int, list[int]] = {}
    for round_ in range(ROUNDS):
        mark = f"passk-killed-{uuid.uuid4().hex}"
        try:
            _kill_at(round_ * STEP, folder, program(mark), NOBODY if as_nobody else [])
            found = _left(mark)
            if found:
                left[round_] = found
        finally:
            kill_quietly(*_processes_marked(mark))  # a failing round cleans up after itself
    assert left == {}, f"{len(left)} of {ROUNDS} rounds left processes behind"
