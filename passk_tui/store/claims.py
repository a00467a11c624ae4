"""Which evaluations a live passk-tui process is running: an advisory file lock per evaluation.

The lock dies with its process (the kernel releases it, even on SIGKILL), so a
stored status of ``running`` whose lock is free means the process was killed:
the evaluation is interrupted. It also stops two processes resuming the same
evaluation at once, which would record its attempts twice. Where ``fcntl`` is
missing (Windows) claims always succeed and nothing is reported as running.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

FOLDER = "running"


class Claim:
    """A held lock on one evaluation; ``release()`` (or the process ending) lets it go."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self.release()


def _lock_path(data: Path, evaluation_id: str) -> Path:
    return data / FOLDER / f"{evaluation_id}.lock"


def claim(data: Path, evaluation_id: str) -> Claim | None:
    """Take the evaluation's lock; None when another process holds it."""
    if fcntl is None:
        return Claim(None)
    path = _lock_path(data, evaluation_id)
    path.parent.mkdir(exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return Claim(fd)


def is_claimed(data: Path, evaluation_id: str) -> bool:
    """Whether a live process (this one included) holds the evaluation's lock."""
    if fcntl is None:
        return False
    try:
        fd = os.open(_lock_path(data, evaluation_id), os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    return False
