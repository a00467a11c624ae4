"""What can go wrong with the store, each as one line for the user and an exit code.

Problems found on opening (a folder that cannot be written, a file that is not
a passk-tui database, a schema from a newer passk-tui) are the user's files to
fix: InputError, exit 2. Problems while running (a full disk, an I/O error, a
database another process keeps locked) stop the evaluation: RunError, exit 3.
Neither ever deletes or rewrites what is already stored.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from passk_tui.core.errors import InputError, RunError


class StoreUnusable(InputError):
    """The store cannot be opened as it is: unwritable folder, corrupt file, newer schema (exit 2)."""


class StoreWriteError(RunError):
    """A write failed part way through an evaluation: full disk, I/O error, lock (exit 3)."""


class StoreBusy(RunError):
    """The database, or the evaluation asked for, is held by another passk-tui process (exit 3)."""


class UnknownEvaluation(InputError):
    """``--resume ID`` names no stored evaluation (exit 2)."""


_HINT = "set PASSK_DATA_DIR to a writable folder"


def opening_error(path: Path, exc: sqlite3.Error) -> Exception:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return StoreBusy(f"{path}: the store is locked by another process; try again")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreUnusable(
            f"{path}: not a usable passk-tui store ({exc}); move it aside to start a new one"
        )
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return StoreUnusable(f"{path}: the store cannot be written ({exc}); {_HINT}")
    if "full" in text:
        return StoreWriteError(f"{path}: the disk is full")
    return StoreUnusable(f"{path}: the store cannot be used ({exc})")


def writing_error(path: Path, what: str, exc: Exception) -> Exception:
    text = str(exc).lower()
    if "full" in text:
        problem = "the disk is full"
    elif "locked" in text or "busy" in text:
        return StoreBusy(
            f"{path}: cannot store {what}: the store is locked by another process; "
            "what was stored is kept"
        )
    elif isinstance(exc, sqlite3.IntegrityError):
        problem = f"already recorded ({exc})"
    else:
        problem = str(exc)
    return StoreWriteError(f"{path}: cannot store {what}: {problem}; what was stored is kept")
