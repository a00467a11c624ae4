"""A sandbox's PID namespace: waited for after its program ends, killed when it is cut short.

bwrap exits as soon as the program does; its init (pid 1 of the namespace) dies
after it, by --die-with-parent, and only then does the kernel kill what is left in
the namespace. bwrap's status pipe names that init (``{"child-pid": N}``), so a run
ends only once nothing it started is left, as docs/sandboxes.md promises.

Cut short (a cancel, a deadline), killing bwrap is not enough: its init asks to die
with its parent only once the walls are up, so bwrap killed while it builds them
leaves an orphaned sandbox running (and its program holding the pipes we read).
So the init is killed first, which ends everything in the namespace at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal

#: How often, and how many times, to look whether the namespace is gone (at most 5 s:
#: it takes milliseconds, as SIGKILL does).
POLL = 0.002
WAITS = 2500

# bwrap writes '{ "child-pid": N' in one write, which a pipe never splits.
_CHILD_PID = re.compile(r'"child-pid"\s*:\s*([0-9]+)')


async def namespace_gone(status: int) -> None:
    """Return once the init named on the ``status`` pipe (bwrap has exited) has exited."""
    found = _CHILD_PID.search(_read_now(status))
    if found is not None:  # else bwrap failed before it started anything
        await _ended_at_last(int(found[1]))


async def end_namespace(status: int, bwrap: int) -> None:
    """Kill the namespace's init while ``bwrap`` (its parent) runs, and wait for it to end.

    The init is named on the ``status`` pipe right after bwrap clones it; until then
    (or until bwrap has exited without making one) this waits for it.
    """
    said = ""
    for _ in range(WAITS):
        exited = _ended(bwrap)
        said += _read_now(status)
        found = _CHILD_PID.search(said)
        if found is not None:
            init = int(found[1])
            _kill_child(init, bwrap)
            await _ended_at_last(init)
            return
        if exited:
            return
        await asyncio.sleep(POLL)


def _read_now(status: int) -> str:
    """What the ``status`` pipe holds now, without waiting for more."""
    os.set_blocking(status, False)
    try:
        return os.read(status, 65536).decode("utf-8", "replace")
    except BlockingIOError:
        return ""


def _kill_child(pid: int, parent: int) -> None:
    """SIGKILL ``pid`` if it is still ``parent``'s child (a pidfd: never a reused pid)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        if _parent_of(pid) == parent:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
    finally:
        os.close(handle)


def _parent_of(pid: int) -> int | None:
    """``pid``'s parent, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None


async def _ended_at_last(pid: int) -> None:
    """Return once ``pid`` has exited (at most WAITS looks)."""
    for _ in range(WAITS):
        if _ended(pid):
            return
        await asyncio.sleep(POLL)


def _ended(pid: int) -> bool:
    """True when ``pid`` has exited (gone, or a zombie not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
