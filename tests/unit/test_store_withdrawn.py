"""The store's withdrawn attempts (schema 2 migrates schema-1 stores, keeps retakes apart, counts
none) and its attempts in flight."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from passk_tui.core.attempt import Outcome
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import load_cases
from passk_tui.core.run.policy import Slot
from passk_tui.store import Store, StoreWriteError
from passk_tui.store.schema import MIGRATIONS, SCHEMA_VERSION
from tests.support.records import CASES, record, settings_for


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    return path


def test_a_schema_1_store_migrates_with_every_attempt_kept(tmp_path: Path, cases_file) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.executescript(MIGRATIONS[0] + "\nPRAGMA user_version = 1;")
        db.execute(
            "INSERT INTO evaluations (id, created, status, agent, version, attempts, k,"
            " completion_only, concurrency, timeout, cases_path, cases_sha256, case_count)"
            " VALUES ('ev_old', 1.0, 'done', 'demo', 1, 2, 1, 0, 4, 300, ?, 'h', 1)",
            (str(cases_file),),
        )
        db.execute("INSERT INTO cases VALUES ('ev_old', 0, 'one', '\"x\"', '{\"equals\": \"x\"}')")
        db.execute(
            "INSERT INTO attempts VALUES ('ev_old', 0, 1, 'one', 'ev_old/c/one/1', 'passed',"
            " 'completed', '\"x\"', NULL, NULL, 'run_1', 'turn_1', 1.0, 2.0, 1.0, NULL)"
        )
    with Store.open(path) as store:
        assert store.connection.query("PRAGMA user_version")[0][0] == SCHEMA_VERSION
        stored = store.load("ev_old")
        [summary] = store.list_evaluations()
    assert [(r.attempt, r.retake, r.key) for r in stored.records] == [(1, 0, "ev_old/c/one/1")]
    assert stored.withdrawn == [] and summary.recorded == 1


def test_withdrawn_attempts_are_kept_apart_and_number_the_retakes(tmp_path, cases_file) -> None:
    with Store.open(tmp_path / "s.db") as store:
        store.create_evaluation("ev_x", settings_for(cases_file), load_cases(cases_file), "h")
        withdrawn = Outcome.WITHDRAWN
        store.write(
            "ev_x",
            [
                record(0, 1),
                record(0, 2, withdrawn, status="withdrawn"),
                record(1, 3, withdrawn, status="withdrawn"),
            ],
        )
        store.write("ev_x", [record(0, 2, retake=1)])  # its retake finished
        store.write("ev_x", [record(1, 3, withdrawn, status="withdrawn", retake=1)])  # again
        stored = store.load("ev_x")
        [summary] = store.list_evaluations()
        with pytest.raises(StoreWriteError, match="already recorded"):
            store.write("ev_x", [record(0, 2, retake=2)])  # a second counted (case, attempt)
    assert [(r.case_index, r.attempt, r.retake) for r in stored.records] == [(0, 1, 0), (0, 2, 1)]
    assert len(stored.withdrawn) == 3
    assert stored.retakes() == {(1, 3): 2}
    assert summary.recorded == 2
    assert [f.n for f in stored.figures()] == [2, 0]


def test_attempts_in_flight_are_kept_until_their_record_or_withdrawal(tmp_path, cases_file) -> None:
    cases = load_cases(cases_file)
    with Store.open(tmp_path / "s.db") as store:
        store.create_evaluation("ev_x", settings_for(cases_file), cases, "h")

        def planned(case_index: int, attempt: int, retake: int = 0) -> PlannedAttempt:
            return PlannedAttempt.of("ev_x", case_index, cases[case_index], attempt, retake)

        store.start("ev_x", [planned(0, 1), planned(0, 2), planned(1, 1), planned(1, 2, 1)])
        store.start("ev_x", [planned(1, 1)])  # a resume replaying it: kept once
        store.write("ev_x", [record(0, 1), record(0, 2, Outcome.WITHDRAWN, status="withdrawn")])
        stored = store.load("ev_x")
    assert stored.in_flight == [Slot(1, 1), Slot(1, 2, 1)]
    # The withdrawn one runs again under its next key; those in flight replay their own.
    assert stored.retakes() == {(0, 2): 1, (1, 1): 0, (1, 2): 1}
    assert [r.attempt for r in stored.records] == [1]
