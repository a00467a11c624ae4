"""Many processes opening one store at once: creating and migrating it is safe, none fails."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import load_cases
from passk_tui.store import Store
from passk_tui.store.schema import MIGRATIONS, SCHEMA_VERSION, statements
from tests.support.records import record

CASES = """\
[[cases]]
name = "one"
input = "one"
check = { equals = "one" }
"""


def _open_and_write(path: str, cases_path: str, barrier: Barrier, number: int) -> str:
    """One process: wait for all the others, then open the store and keep an evaluation."""
    evaluation_id = f"ev_{number}"
    settings = Settings(agent="demo", version=1, cases_path=cases_path, attempts=1, k=1)
    barrier.wait(timeout=60)
    try:
        with Store.open(path) as store:
            store.create_evaluation(evaluation_id, settings, load_cases(Path(cases_path)), "h")
            store.write(evaluation_id, [record(0, 1, key=f"{evaluation_id}/one/1", output="one")])
    except (InputError, RunError, sqlite3.Error) as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"


@pytest.mark.parametrize("processes", [8, 16])
def test_processes_opening_a_fresh_store_at_once_all_succeed(
    tmp_path: Path, processes: int
) -> None:
    cases = tmp_path / "cases.toml"
    cases.write_text(CASES)
    context = multiprocessing.get_context("spawn")  # real processes, none sharing a connection
    with context.Manager() as manager, context.Pool(processes) as pool:
        for round_ in range(3):
            path = tmp_path / f"round{round_}" / "passk.db"
            barrier = manager.Barrier(processes)
            results = pool.starmap(
                _open_and_write,
                [(str(path), str(cases), barrier, n) for n in range(processes)],
            )
            assert results == ["ok"] * processes, results
            with sqlite3.connect(path) as db:
                assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
                assert db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0] == processes
                assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == processes


def test_a_migration_under_way_elsewhere_is_waited_for_then_not_applied_again(
    tmp_path: Path,
) -> None:
    """Deterministic: another process holds the write lock mid-migration while this one opens."""
    path = tmp_path / "passk.db"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA journal_mode = WAL")
    other.execute("BEGIN IMMEDIATE")
    for step in MIGRATIONS:
        for statement in statements(step):
            other.execute(statement)
    other.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    outcome: list[object] = []

    def open_store() -> None:
        try:
            Store.open(path).close()
            outcome.append("ok")
        except Exception as exc:  # the failure is the finding: report it, do not hang
            outcome.append(exc)

    opener = threading.Thread(target=open_store)
    opener.start()
    time.sleep(0.5)
    assert opener.is_alive() and not outcome  # waiting for the lock, not failing at once
    other.execute("COMMIT")
    other.close()
    opener.join(timeout=10)
    assert outcome == ["ok"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
