"""Waiting for a sandbox's PID namespace to be gone, with everything the program started.

bwrap exits as soon as the program does; its init (pid 1 of the namespace) dies
after it, by --die-with-parent, and only then does the kernel kill what is left in
the namespace. bwrap's status pipe names that init (``{"child-pid": N}``), so a run
ends only once nothing it started is left, as docs/sandboxes.md promises.
"""

from __future__ import annotations

import asyncio
import os
import re

#: How often, and how many times, to look whether the namespace is gone (at most 5 s:
#: it takes milliseconds, as SIGKILL does).
POLL = 0.002
WAITS = 2500

_CHILD_PID = re.compile(r'"child-pid"\s*:\s*([0-9]+)')


async def namespace_gone(status: int) -> None:
    """Return once the init named on the ``status`` pipe (bwrap has exited) has exited."""
    os.set_blocking(status, False)
    try:
        text = os.read(status, 65536).decode("utf-8", "replace")
    except BlockingIOError:
        return
    found = _CHILD_PID.search(text)
    if found is None:
        return  # bwrap failed before it started anything
    pid = int(found[1])
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
