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
bwrap to us:

- our child, the keeper, asks to be killed when the thread that forked it ends, then
  checks that its parent is still the one that forked it (a parent killed before the
  ask is seen there: the keeper exits), all before anything else (the pre-exec below).
  It makes the PID namespace (in a user namespace of its own, as itself, where it is
  not root), starts bwrap, waits for it and exits as it does;
- bwrap asks to be killed when the keeper ends, once it has cloned the init, and then,
  before it lets the init go on, writes to a pipe only the keeper reads (its status
  pipe), exiting if no one can read it. A process's files are closed before its
  children are told it died, so the write tells which came first: written, the keeper
  was alive after bwrap asked, and bwrap will be told; not written, bwrap exits, and
  the waiting init with it.

(The pipe must be the keeper's alone, not ours: we are threaded, and a killed process's
threads end one by one, its files closing with the last, after the keeper was told.
``unshare --fork --kill-child`` would be the second link, but util-linux before 2.39,
Debian 12's among them, does not check: its child, not run for a few ms on a loaded
machine, asked only once unshare was gone.)

The keeper is a fork of us that never runs a program of its own, so it runs Python in a
forked child of a threaded process: system calls only, nothing another thread may have
held, and bwrap is started with posix_spawn, which copies none of our memory.

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from passk_tui.core.inputs.program import kill_group, to_the_end
from passk_tui.core.sandbox.limits import SAYS

#: prctl(2)'s option to be sent a signal when the thread that forked us ends.
PR_SET_PDEATHSIG = 1
#: unshare(2)'s flags (linux/sched.h).
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000


def dies_with_us(
    argv: Sequence[str], env: Mapping[str, str], user: int | None
) -> Callable[[], None]:
    """The pre-exec that makes our child the keeper, which starts bwrap (``argv``, with
    ``env``) as pid 1 and exits as it does (see above), the two run as ``user`` (uid and
    gid, no other groups) when given. The child never returns to exec ``argv`` itself."""
    unshare, prctl = _calls()
    parent = os.getpid()
    environment = dict(env)

    def tie() -> None:
        try:
            _namespace(unshare, user)
        except OSError as exc:
            _fail(exc)
        # prctl after any change of user, which would clear it.
        if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != parent:
            os._exit(1)
        knot, told = os.pipe()  # read by the keeper alone: bwrap gets the writing end
        os.set_inheritable(told, True)
        try:
            # posix_spawn, not fork: the child shares our memory until its exec (a fork
            # of passk-tui would copy it, and cost a millisecond or more).
            bwrap = os.posix_spawnp(
                argv[0], [argv[0], "--json-status-fd", str(told), *argv[1:]], environment
            )
        except OSError as exc:
            _fail(exc)
        # Hold none of our files but the knot (nor the pipe that tells our parent we
        # have started), wait for bwrap, and exit as it did.
        os.closerange(0, knot)
        os.closerange(knot + 1, os.sysconf("SC_OPEN_MAX"))
        code = os.waitstatus_to_exitcode(os.waitpid(bwrap, 0)[1])
        os._exit(code if code >= 0 else 128 - code)

    return tie


def _fail(exc: OSError) -> NoReturn:
    """Say why no sandbox could be made, as bwrap does, and exit."""
    os.write(2, f"{SAYS}{exc.strerror or exc}\n".encode())
    os._exit(1)


@functools.cache
def _calls() -> tuple[Any, Any]:
    """libc's unshare and prctl (ctypes: loaded once, by a process that sandboxes)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.unshare, libc.prctl


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


def _parent_of(pid: int) -> int | None:
    """``pid``'s parent, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None
