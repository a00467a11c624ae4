"""A local agent that is a program: input on stdin, answer on stdout, one process per attempt."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passk_tui.core.attempt import Turn

if TYPE_CHECKING:
    from passk_tui.core.plan import PlannedAttempt
    from passk_tui.targets.base import RetryNotice

#: How much of stderr a failed attempt keeps: the end, where the reason usually is.
STDERR_TAIL = 500


def stdin_bytes(value: Any) -> bytes:
    """A case input as the agent reads it: a string as UTF-8 text, anything else as JSON."""
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


class CommandTarget:
    """Runs an argv per attempt in the agents file's folder, in its own process group.

    Exit 0 is a completed Turn whose output is stdout (one trailing newline
    removed); any other exit is a failed Turn carrying the tail of stderr.
    When the engine cancels an attempt (deadline or user), the whole process
    group is killed and the child reaped before ``CancelledError`` goes on.
    """

    def __init__(self, argv: Sequence[str], cwd: Path, *, label: str = "") -> None:
        if not argv:
            raise ValueError("CommandTarget needs a non-empty argv")
        self.argv = tuple(argv)
        self.cwd = cwd
        self.label = label
        self._running: set[asyncio.subprocess.Process] = set()

    def __repr__(self) -> str:
        return f"CommandTarget(argv={list(self.argv)!r}, cwd={str(self.cwd)!r})"

    async def prepare(self) -> None:
        """Nothing to check up front: a program that cannot start fails its attempts."""

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """Run the program once on this attempt's input and map its exit to a Turn."""
        data = stdin_bytes(attempt.case.input)
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.argv,
                cwd=self.cwd,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                # Its own process group, so a kill reaches whatever it spawned.
                start_new_session=True,
            )
        except OSError as exc:
            return Turn("failed", error=f"cannot start {self.argv[0]!r}: {exc.strerror or exc}")
        self._running.add(proc)
        try:
            stdout, stderr = await proc.communicate(data)
        except BaseException:
            await _kill_and_reap(proc)
            raise
        finally:
            self._running.discard(proc)
        # Leave nothing behind: a backgrounded grandchild must not outlive its attempt.
        _kill_group(proc.pid)
        code = proc.returncode
        if code == 0:
            return Turn("completed", output=_answer(stdout))
        return Turn("failed", error=_exit_error(code, stderr))

    async def aclose(self) -> None:
        """Kill and reap any program still running (normally none: the engine cancels first)."""
        for proc in list(self._running):
            await _kill_and_reap(proc)
        self._running.clear()


def _answer(stdout: bytes) -> str:
    """stdout as text with exactly one trailing newline (``\\n`` or ``\\r\\n``) removed."""
    text = stdout.decode("utf-8", errors="replace")
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text


def _exit_error(code: int | None, stderr: bytes) -> str:
    """``exit 3: <stderr tail>``, or ``killed by SIGSEGV: ...`` for a signal."""
    if code is not None and code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit {code}"
    tail = stderr.decode("utf-8", errors="replace").strip()[-STDERR_TAIL:]
    return f"{how}: {tail}" if tail else how


def _kill_group(pgid: int) -> None:
    """SIGKILL a process group; it may already be gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


async def _kill_and_reap(proc: asyncio.subprocess.Process) -> None:
    """Kill the program's whole group and wait for the program itself, even if cancelled again."""
    _kill_group(proc.pid)
    waiting = asyncio.ensure_future(proc.wait())
    cancelled = False
    while not waiting.done():
        try:
            await asyncio.shield(waiting)
        except asyncio.CancelledError:
            # A second cancel (user cancel after the deadline) must not leave a zombie:
            # SIGKILL makes this wait short, so finish it, then pass the cancel on.
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
