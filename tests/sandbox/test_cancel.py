"""A sandboxed attempt cancelled in flight ends at once and leaves no process behind.

The hard moment is while bwrap is still making the sandbox: its clone (the namespace's
init, pid 1) asks to die with its parent only once its walls are up, so bwrap killed
in between left an orphaned sandbox whose program waited on a stdin nobody would
close, and the engine waited on that program's output for ever. Each case here is
cancelled as soon as that clone exists (two processes named with its mark: bwrap
and its clone), again and again, as a user's stop or an app that never showed does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from passk_tui.core.checks.command import CommandCheck
from passk_tui.core.sandbox.settings import parse_sandbox
from passk_tui.targets.command import CommandTarget
from tests.sandbox.test_walls import _processes_marked
from tests.support.processes import gone

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")

#: Cancels per test: each catches bwrap at a slightly different step of its setup.
TRIES = 6
#: Long enough to tell a hang from a loaded machine (a fixed program ends in milliseconds).
HANG = 30


def _blocking(mark: str) -> list[str]:
    """A program that waits on stdin, then sleeps: left alone, it never ends by itself."""
    code = f"import sys, time; sys.stdin.read(); time.sleep(600)  # {mark}"
    return [sys.executable, "-c", code]


async def _as_agent(folder: Path, mark: str) -> Callable[[], Awaitable[Any]]:
    sandbox = parse_sandbox(True, "agents.toml", folder)
    target = CommandTarget(_blocking(mark), folder, sandbox=sandbox)
    planned: Any = SimpleNamespace(case=SimpleNamespace(input="x", name="c"), attempt=1)
    deadline = asyncio.get_running_loop().time() + HANG

    async def run() -> Any:
        try:
            return await target.execute(planned, deadline, _no_retry)
        finally:
            await target.aclose()

    return run


async def _as_check(folder: Path, mark: str) -> Callable[[], Awaitable[Any]]:
    spec = {"command": _blocking(mark), "sandbox": True}
    check = CommandCheck(spec, "cases.toml: case 'c': check", folder)
    return lambda: check.verdict("x", asyncio.get_running_loop().time() + HANG)


def _no_retry(reason: str, delay: float) -> None:
    raise AssertionError(reason)


async def _sandbox_being_made(mark: str) -> None:
    """Return once bwrap has cloned the sandbox's init (both carry the program's argv)."""
    for _ in range(HANG * 1000):
        if len(_processes_marked(mark)) >= 2:
            return
        await asyncio.sleep(0.001)
    raise AssertionError("bwrap never started")


@pytest.mark.parametrize("runner", [_as_agent, _as_check], ids=["agent", "check"])
async def test_cancelled_while_its_sandbox_is_made_it_ends_and_leaves_nothing(
    tmp_path: Path, runner: Callable[[Path, str], Awaitable[Callable[[], Awaitable[Any]]]]
) -> None:
    hung, left = 0, []
    for _ in range(TRIES):
        mark = f"passk-cancel-{uuid.uuid4().hex}"
        running = asyncio.ensure_future((await runner(tmp_path, mark))())
        try:
            await _sandbox_being_made(mark)
            running.cancel()
            done, _ = await asyncio.wait((running,), timeout=HANG)
            hung += not done
            left += [pid for pid in _processes_marked(mark) if not gone(pid)]
        finally:
            for pid in _processes_marked(mark):  # a failing run cleans up after itself
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if not running.done():
                await asyncio.wait((running,), timeout=HANG)
        if hung or left:
            break
    assert (hung, left) == (0, [])
