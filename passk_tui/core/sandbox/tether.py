"""What ties a sandbox to the process that starts it: killed at any instant, even by SIGKILL,
that process leaves no sandbox process behind.

A SIGKILL (``kill -9``, an OOM kill, Ray force-cancelling a task or killing its worker)
runs none of our code, so the kernel must do the killing. It kills a process whose
parent dies when the process asked for it (PR_SET_PDEATHSIG), and it kills every process
of a PID namespace when the namespace's pid 1 dies. bwrap asks for the first
(``--die-with-parent``), but too late for both its processes: bwrap itself only once it
has cloned the sandbox's init, and that init only once it has built the walls (10-15 ms),
so a kill in between left bwrap, or the init and the program, running for good.

So bwrap runs as pid 1 of a PID namespace of its own: its clone and all the sandbox
starts live inside it, and bwrap's death, at any instant, ends them all. The chain from
us to bwrap is tied link by link:

- our child asks, before it runs anything (the pre-exec below), to be killed when the
  thread that forked it ends, then checks that its parent is still the one that forked
  it (a parent killed before the ask is seen there: the child exits). It makes the PID
  namespace there too (in a user namespace of its own, as itself, where it is not
  root), and becomes ``unshare``;
- ``unshare --fork --kill-child`` forks the namespace's pid 1, which asks to be killed
  when unshare dies, and becomes bwrap. util-linux before 2.39 does not check, as we do,
  that unshare still runs once it has asked, so that ask alone can come too late;
- so the last knot is bwrap's status pipe, whose reading end only we hold: right after
  bwrap clones the init, and before it lets the init go on, it writes there, and exits
  when no one can read it. Written, we were alive after every ask above was made, so
  each was made while its parent lived; not written, bwrap and the waiting init end.

(Another program of ours being started at that instant holds the pipe until its own
exec: microseconds in which the pipe still reads as ours.)

Cut short by us (a cancel, a deadline), bwrap is killed first, and unshare, which waits
for it, ends only once the namespace is empty (the kernel empties a namespace before its
pid 1 is reaped); so a run still ends only once nothing it started is left.

Where no namespace may be made (user namespaces restricted, as Ubuntu 24.04's AppArmor
does for programs without a profile), bwrap is still tied to us and its init to bwrap,
but the init's first milliseconds are not covered.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import signal
from collections.abc import Callable, Sequence
from typing import Any

from passk_tui.core.inputs.program import kill_group, to_the_end

#: prctl(2)'s option to be sent a signal when the thread that forked us ends.
PR_SET_PDEATHSIG = 1
#: unshare(2)'s flags (linux/sched.h).
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000


def tethered(argv: Sequence[str]) -> list[str]:
    """``argv`` (bwrap's command line) run as pid 1 of the PID namespace ``dies_with_us``
    makes, and killed when unshare is."""
    unshare = shutil.which("unshare") or "unshare"
    return [unshare, "--fork", "--kill-child", "--", *argv]


def dies_with_us(user: int | None) -> Callable[[], None]:
    """The pre-exec of our child, which becomes unshare: a PID namespace for its children,
    ``user``'s uid and gid (no other groups) when given, and death with the thread that
    forks it (which calls this)."""
    unshare, prctl = _calls()
    parent = os.getpid()

    def tie() -> None:
        # Only system calls: this runs in a forked child of a threaded process. The
        # namespace first, then who it runs as: root makes it alone, anyone else in a user
        # namespace of their own; then the ask, as a change of user would clear it.
        try:
            if os.geteuid() == 0:
                unshare(CLONE_NEWPID)  # failing, it goes on without (see above)
                if user is not None:
                    os.setgroups([])
                    os.setregid(user, user)
                    os.setreuid(user, user)
            elif unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0:
                _map_self(os.geteuid(), os.getegid())
        except OSError as exc:
            os.write(2, f"unshare: {exc.strerror or exc}\n".encode())
            os._exit(1)
        if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != parent:
            os._exit(1)

    return tie


@functools.cache
def _calls() -> tuple[Any, Any]:
    """libc's unshare and prctl (ctypes: loaded once, by a process that sandboxes)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.unshare, libc.prctl


def _map_self(uid: int, gid: int) -> None:
    """In the user namespace just made, be who we are outside (as ``unshare -c`` does)."""
    lines = (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{gid} {gid} 1"))
    for name, line in lines:
        handle = os.open(f"/proc/self/{name}", os.O_WRONLY)
        try:
            os.write(handle, line.encode())
        finally:
            os.close(handle)


async def end_tethered(unshare: asyncio.subprocess.Process) -> None:
    """Cut short: kill bwrap (the namespace's pid 1, so all in it), then wait for unshare,
    which ends once bwrap and its namespace have; before unshare forked, kill unshare."""
    forked = _children(unshare.pid)
    for pid in forked:
        _kill_child(pid, unshare.pid)
    if not forked:
        kill_group(unshare.pid)  # and a child forked meanwhile: a group's kill misses none
    await to_the_end(unshare.wait())


def _children(pid: int) -> list[int]:
    """``pid``'s children now."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as listed:
            return [int(child) for child in listed.read().split()]
    except (FileNotFoundError, ProcessLookupError):
        return []


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
