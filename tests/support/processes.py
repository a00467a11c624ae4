"""Real processes and terminals: reading a pty until a mark, waiting for a condition, a process gone."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import time
from pathlib import Path

LEAVE_ALT_SCREEN = b"\x1b[?1049l"


def read_until(fd: int, wanted: bytes, limit: float) -> bytes:
    seen = b""
    give_up = time.monotonic() + limit
    while wanted not in seen and time.monotonic() < give_up:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def gone(pid: int) -> bool:
    """True when the process no longer runs: no such pid, or a zombie awaiting init.

    A zombie grandchild belongs to init once its parent dies; whether init reaps it
    promptly is the machine's business, not the target's.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # ESRCH: it is being reaped
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def kill_quietly(*pids: int) -> None:
    """Clean up after a failing test: nothing it started may linger."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def wait_until(process, condition, what: str, limit: float = 30) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


async def until_stopped() -> None:
    """Wait on the running loop until SIGINT or SIGTERM: a test server run as a process."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
