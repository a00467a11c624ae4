"""Opening the store: the data folder, the one SQLite connection, its lock and transactions.

Durability: WAL with ``synchronous=NORMAL``. A commit returns once its pages are
written to the WAL file (handed to the operating system); the WAL is fsynced at
checkpoints. A killed process (SIGKILL, a closed terminal, a crash) therefore
loses no committed attempt, because the kernel still writes out what it was
given; only a power cut or kernel crash can drop the last few commits, and even
then the database stays consistent. That is the failure the issue asks us to
survive, at a fraction of the cost of an fsync per batch.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import platformdirs

from passk_tui.store.errors import StoreUnusable, opening_error, writing_error
from passk_tui.store.schema import NewerSchema, migrate

DB_NAME = "passk.db"
_BUSY_TIMEOUT_MS = 5000
#: SQLite's primary result codes for a file another connection holds.
_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def data_dir() -> Path:
    """Where the store lives: $PASSK_DATA_DIR, else the platform's user data folder."""
    configured = os.environ.get("PASSK_DATA_DIR")
    return Path(configured) if configured else Path(platformdirs.user_data_dir("passk-tui"))


class StoreConnection:
    """The SQLite file, opened; safe to share between the event loop and a worker thread."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self._lock = threading.Lock()

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str | None = None) -> Self:
        """Open (creating if needed) the store at ``path`` or ``data_dir()/passk.db``."""
        path = Path(path) if path is not None else data_dir() / DB_NAME
        folder = path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnusable(
                f"{folder}: cannot create the data folder: {exc.strerror or exc} "
                "(set PASSK_DATA_DIR to a writable folder)"
            ) from None
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise StoreUnusable(
                f"{path}: the store cannot be written (set PASSK_DATA_DIR to a writable folder)"
            )
        try:
            connection = sqlite3.connect(
                path,
                isolation_level=None,  # transactions are explicit: one per batch
                check_same_thread=False,
                timeout=_BUSY_TIMEOUT_MS / 1000,
            )
        except sqlite3.Error as exc:
            raise opening_error(path, exc) from None
        try:
            connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            _when_free(lambda: _set_up(path, connection))
        except NewerSchema as exc:
            connection.close()
            raise StoreUnusable(
                f"{path}: made by a newer passk-tui (schema {exc.args[0]}); upgrade passk-tui"
            ) from None
        except sqlite3.Error as exc:
            connection.close()
            raise opening_error(path, exc) from None
        except BaseException:
            connection.close()
            raise
        return cls(path, connection)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def writing(self, what: str) -> Iterator[sqlite3.Connection]:
        """One transaction; any failure rolls it back and becomes a one-line StoreWriteError."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            # A value that cannot be laid out or bound (too deep, an integer past 64 bits)
            # is a failed write like any other: the sink must say so, never drop a batch.
            except (sqlite3.Error, ValueError, OverflowError, RecursionError) as exc:
                raise writing_error(self.path, what, exc) from None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """The rows ``sql`` reads; a failure becomes a one-line store error (busy or unusable)."""
        with self._lock:
            try:
                cursor = self._db.execute(sql, params)
                cursor.row_factory = sqlite3.Row
                return cursor.fetchall()
            except sqlite3.Error as exc:
                raise opening_error(self.path, exc) from None


def _set_up(path: Path, connection: sqlite3.Connection) -> None:
    """Write-ahead log, durability, foreign keys, and the schema brought up to date."""
    mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise StoreUnusable(f"{path}: the store cannot use a write-ahead log ({mode})")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    migrate(connection)


def _when_free(step: Callable[[], None]) -> None:
    """Run ``step``, again after a short random pause while SQLite says the file is busy.

    The busy timeout covers waiting for a lock, but not every busy answer: switching
    a fresh file to WAL while other processes open it too fails at once. Bounded by
    the busy timeout, after which the busy error is the caller's (StoreBusy).
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
    pause = 0.002
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF not in _BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 2, 0.1)
