"""Store files as an older passk-tui left them, to check that migrations keep everything."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from passk_tui.store.schema import MIGRATIONS


@contextmanager
def store_at_schema(path: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A store made by the first ``version`` migrations only, open for old rows to go in."""
    with sqlite3.connect(path) as db:
        for number, step in enumerate(MIGRATIONS[:version], start=1):
            db.executescript(f"{step}\nPRAGMA user_version = {number};")
        yield db
