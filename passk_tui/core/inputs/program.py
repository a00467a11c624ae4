"""Local programs (agents and `command` checks): found before anything runs, leaving nothing behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: Variables no local program is given: the stack key is the user's, held for the stack
#: alone: a local program is never given it. ``serve`` hands a ``--key`` to its app
#: processes as PASSK_KEY, so this is where a flag's key would reach a program too.
WITHHELD = frozenset({"PASSK_KEY"})


def argv_problem(argv: Sequence[str]) -> str | None:
    """Why ``argv`` can never be started ('argument 2 holds a NUL character'), or None.

    The OS takes each argument as a C string, so a NUL in one is refused by exec
    (Python raises ValueError): said when the file is read, before anything starts.
    """
    for number, part in enumerate(argv, 1):
        if "\x00" in part:
            return f"argument {number} holds a NUL character, which no program can be given"
    return None


def program_problem(program: str, cwd: Path) -> str | None:
    """Why ``program`` cannot start from ``cwd`` ('not found: x', 'not executable: x'), or None.

    A name with a slash is a path (relative ones from ``cwd``, as the OS will
    take it there); a bare name is looked up on PATH, as ``exec`` does.
    """
    if os.sep not in program and not (os.altsep and os.altsep in program):
        return None if shutil.which(program) else f"not found on PATH: {program}"
    path = cwd / program  # an absolute program replaces cwd
    if not path.exists():
        return f"not found: {program}"
    if path.is_dir() or not os.access(path, os.X_OK):
        return f"not executable: {program}"
    return None


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a local program (agent or `command` check) runs in: ours and ``extra``
    (an agent's PASSK_CASE, PASSK_ATTEMPT, PASSK_EVALUATION), minus ``WITHHELD``.

    Read at each start, so it follows this process's environment; other secrets (an
    `openai` agent's api_key_env, say) stay, as a check that asks a model needs them.
    """
    env = {**os.environ, **(extra or {})}
    return {name: value for name, value in env.items() if name not in WITHHELD}


#: How a program cut short is ended: by default its group killed and it reaped
#: (``kill_and_reap``); a sandbox ends its PID namespace first.
Stop = Callable[[asyncio.subprocess.Process], Awaitable[None]]


async def run_program(
    argv: Sequence[str],
    cwd: Path,
    stdin: bytes,
    running: set[asyncio.subprocess.Process] | None = None,
    extra_env: Mapping[str, str] | None = None,
    stop: Stop | None = None,
    preexec: Callable[[], None] | None = None,
) -> tuple[int | None, bytes, bytes]:
    """Run ``argv`` in its own process group with ``stdin``: (exit code, stdout, stderr).

    When cancelled (a deadline, the user) the whole group is killed and the
    program reaped before ``CancelledError`` goes on (or ``stop`` ends it); after a
    normal exit the group is killed too, so a backgrounded grandchild does not outlive it.
    OSError (the program cannot start) propagates. ``running`` holds the
    process while it runs, for a caller that must kill it on close. Its
    environment is ``child_env(extra_env)``: never the stack key. ``preexec`` runs in
    the child before the program starts (a sandbox's: core/sandbox/tether.py).
    """
    end = stop or kill_and_reap
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=child_env(extra_env),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
        )
    )
    try:
        proc = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled while it starts: asyncio would kill the program alone (not its group,
        # nor a sandbox's namespace), so it is let start, then ended as below.
        with contextlib.suppress(asyncio.CancelledError):
            await to_the_end(asyncio.wait((starting,)))
        if not starting.cancelled() and starting.exception() is None:
            with contextlib.suppress(asyncio.CancelledError):
                await to_the_end(end(starting.result()))
        raise
    if running is not None:
        running.add(proc)
    try:
        stdout, stderr = await proc.communicate(stdin)
    except BaseException:
        await to_the_end(end(proc))
        raise
    finally:
        if running is not None:
            running.discard(proc)
    kill_group(proc.pid)
    return proc.returncode, stdout, stderr


def kill_group(pgid: int) -> None:
    """SIGKILL a process group; it may already be gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


async def kill_and_reap(proc: asyncio.subprocess.Process) -> None:
    """Kill the program's whole group and wait for the program itself, even if cancelled again."""
    kill_group(proc.pid)
    await to_the_end(proc.wait())


async def to_the_end(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable`` to its end even when cancelled meanwhile, then pass the cancel on.

    For what must not be left half done (a kill and its reaping): a second cancel
    (the user's, after a deadline's) waits for it, so no zombie or orphan is left.
    """
    future = asyncio.ensure_future(awaitable)
    cancelled = False
    while not future.done():
        try:
            await asyncio.wait((future,))
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return future.result()
