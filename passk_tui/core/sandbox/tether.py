"""What ties a sandbox to the process that starts it: killed at any instant, even by SIGKILL,
that process leaves no sandbox process behind.

A SIGKILL (``kill -9``, an OOM kill, Ray force-cancelling a task or killing its worker)
runs none of our code, so the kernel must do the killing. It kills a process whose
parent dies when the process asked for it (PR_SET_PDEATHSIG), and every process of a
PID namespace when the namespace's pid 1 dies. bwrap asks for the first
(``--die-with-parent``), but too late for both its processes: bwrap itself only once it
has cloned the sandbox's init, and that init only once it has built the walls (10-15 ms),
so a kill in between left bwrap, or the init and the program, running for good.

So bwrap runs as pid 1 of a PID namespace of its own: its clone and all the sandbox
starts live inside it, and bwrap's death, at any instant, ends them all. Two links tie
it to us, each made in the pre-exec below before anything else runs:

- our child (the keeper) asks to be killed when the thread that forked it ends, then
  checks that its parent is still the one that forked it: a parent killed before the
  ask is seen there, and the keeper exits. It makes the PID namespace (in a user
  namespace of its own, as itself, where it is not root), then forks;
- that fork, pid 1 of the namespace, asks and checks the same of the keeper, then
  becomes bwrap. The keeper waits for it and exits as it does.

(``unshare --fork --kill-child`` would be the second link, but util-linux before 2.39,
Debian 12's among them, does not check: a child not run for a few ms on a loaded
machine asked only once unshare was gone. Nor does a pipe only we read, that bwrap
writes to, tell: a killed process's threads end one by one, and its pipes close with
the last, after its children were told.)

Both links run Python in a forked child of a threaded process, so they make system
calls only: no imports, no locks, nothing another thread may have held.

Cut short by us (a cancel, a deadline), bwrap is killed first, and the keeper, which
waits for it, ends only once the namespace is empty (the kernel empties a namespace
before its pid 1 is reaped); so a run still ends only once nothing it started is left.

Where no namespace may be made (user namespaces restricted, as Ubuntu 24.04's AppArmor
does for programs without a profile), bwrap is still tied to us and its init to bwrap,
but the init's first milliseconds are not covered.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
from collections.abc import Callable
from typing import Any

from passk_tui.core.inputs.program import kill_group, to_the_end
from passk_tui.core.sandbox.limits import SAYS

#: prctl(2)'s option to be sent a signal when the thread that forked us ends.
PR_SET_PDEATHSIG = 1
#: unshare(2)'s flags (linux/sched.h).
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000


def dies_with_us(user: int | None) -> Callable[[], None]:
    """The pre-exec that makes our child the keeper and its fork bwrap (see above), the two
    run as ``user`` (uid and gid, no other groups) when given."""
    unshare, prctl, fork = _calls()
    parent = os.getpid()

    def tie() -> None:
        try:
            _namespace(unshare, user)
        except OSError as exc:
            os.write(2, f"{SAYS}{exc.strerror or exc}\n".encode())
            os._exit(1)
        _dies_with(parent, prctl)
        keeper = os.getpid()
        # libc's fork, not os.fork: the keeper is one thread, made whole again by the
        # fork that made it, and Python's fork hooks would double the cost (about 1 ms).
        if fork() == 0:
            _dies_with(keeper, prctl)
            return  # on to bwrap
        _keep()

    return tie


@functools.cache
def _calls() -> tuple[Any, Any, Any]:
    """libc's unshare, prctl and fork (ctypes: loaded once, by a process that sandboxes)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.unshare, libc.prctl, libc.fork


def _namespace(unshare: Any, user: int | None) -> None:
    """A PID namespace for our children, then ``user``'s identity: root makes it alone
    (and a change of user would clear the ask, so it comes after); anyone else in a user
    namespace of their own. Where none may be made, it goes on without (see above)."""
    if os.geteuid() == 0:
        unshare(CLONE_NEWPID)
        if user is not None:
            os.setgroups([])
            os.setregid(user, user)
            os.setreuid(user, user)
    elif unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0:
        uid, gid = os.geteuid(), os.getegid()
        for name, line in (
            ("uid_map", f"{uid} {uid} 1"),
            ("setgroups", "deny"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            handle = os.open(f"/proc/self/{name}", os.O_WRONLY)
            try:
                os.write(handle, line.encode())
            finally:
                os.close(handle)


def _dies_with(parent: int, prctl: Any) -> None:
    """Ask to be killed when ``parent`` ends; exit now if it already has."""
    # /proc/self: getppid() says 0 to a namespace's pid 1, whose parent is outside it.
    if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or _parent_of("self") != parent:
        os._exit(1)


def _keep() -> None:
    """The keeper's life: hold none of our files (nor the pipe that tells our parent
    bwrap has started), wait for bwrap, and exit as it did."""
    os.closerange(0, os.sysconf("SC_OPEN_MAX"))
    _, status = os.wait()
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


async def end_tethered(keeper: asyncio.subprocess.Process) -> None:
    """Cut short: kill bwrap (the namespace's pid 1, so all in it), then wait for the
    keeper, which ends once bwrap and its namespace have; before the fork, kill the keeper."""
    forked = _children(keeper.pid)
    for pid in forked:
        _kill_child(pid, keeper.pid)
    if not forked:
        kill_group(keeper.pid)  # and a child forked meanwhile: a group's kill misses none
    await to_the_end(keeper.wait())


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


def _parent_of(pid: int | str) -> int | None:
    """``pid``'s parent, or None when it is gone (system calls only: see above)."""
    try:
        handle = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except (FileNotFoundError, ProcessLookupError):
        return None
    try:
        return int(os.read(handle, 4096).rsplit(b")", 1)[1].split()[1])
    except (ProcessLookupError, IndexError, ValueError):
        return None
    finally:
        os.close(handle)
