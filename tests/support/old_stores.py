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


def insert_old_evaluation(db: sqlite3.Connection, evaluation_id: str = "ev_old") -> None:
    """A done evaluation of demo v1 with the columns every schema has (no cases, no attempts)."""
    db.execute(
        "INSERT INTO evaluations (id, created, status, agent, version, attempts, k,"
        " completion_only, concurrency, timeout, cases_path, cases_sha256, case_count)"
        " VALUES (?, 1.0, 'done', 'demo', 1, 3, 2, 0, 4, 300, 'cases.toml', 'x', 0)",
        (evaluation_id,),
    )
