"""A stored setting is laid out by its type, and its column needs no migration: a store
that lacks it (written before the setting was declared) gains it when opened, its old
rows reading as the setting's default."""

from __future__ import annotations

import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest

from passk_tui.core.inputs.price import Price
from passk_tui.core.inputs.schema import FIELDS, Field, Group, Kind
from passk_tui.core.inputs.settings import Settings
from passk_tui.store import Store
from passk_tui.store import rows as store_rows
from passk_tui.store.rows import setting_columns, settings_from_row, settings_row
from passk_tui.store.schema import SCHEMA_VERSION
from tests.support.old_stores import insert_old_evaluation, store_at_schema


def test_every_setting_comes_back_as_it_went_in(tmp_path: Path) -> None:
    settings = Settings(
        agent="a", version=2, cases_path="c.toml", attempts=7, k=2, completion_only=True,
        require=Fraction(9, 10), concurrency=3, timeout=12.5, stack="http://s", agents_path="x",
        max_attempts=20, precision=0.1, confidence=0.9, price=Price(Fraction(15, 100), Fraction(6, 10)),
        budget_runs=9, budget_cost=Fraction(5, 2), family_wise=True, executor="local",
        label="a few words", extended=True,
    )  # fmt: skip
    row = settings_row(settings)
    # Exact values stay exact text: the gate as a fraction, money as its decimal.
    assert (row["require"], row["budget_cost"], row["price_in"]) == ("9/10", "2.5", "0.15")
    with sqlite3.connect(":memory:") as db:
        db.row_factory = sqlite3.Row
        db.execute(f"CREATE TABLE t ({', '.join(row)})")
        db.execute(f"INSERT INTO t VALUES ({', '.join('?' * len(row))})", list(row.values()))
        assert settings_from_row(db.execute("SELECT * FROM t").fetchone()) == settings


def test_a_store_without_a_settings_column_gains_it_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "passk.db"
    with store_at_schema(path, SCHEMA_VERSION) as db:
        insert_old_evaluation(db)
        db.execute("ALTER TABLE evaluations DROP COLUMN label")  # as if written before --label
    with Store.open(path) as store:
        assert store.load("ev_old").settings.label is None
    with sqlite3.connect(path) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(evaluations)")}
    assert set(setting_columns()) <= columns


def test_a_new_setting_declared_in_the_schema_is_stored_with_no_migration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "passk.db"
    with store_at_schema(path, SCHEMA_VERSION) as db:
        insert_old_evaluation(db)
    fresh = Field("fresh", "--fresh", Group.HOW, "", "N", setting="attempts", column="fresh",
                  kind=Kind.WHOLE)  # fmt: skip
    monkeypatch.setattr(store_rows, "_STORED", (*store_rows._STORED, fresh))
    with Store.open(path) as store:
        assert store.load("ev_old").settings.attempts == 3  # NULL in the new column: as stored
    with sqlite3.connect(path) as db:
        kinds = {row[1]: row[2] for row in db.execute("PRAGMA table_info(evaluations)")}
    assert kinds["fresh"] == "INTEGER"


def test_every_kind_has_a_codec() -> None:
    assert {f.kind for f in FIELDS} <= store_rows.CODECS.keys()
    assert all((f.kind is Kind.SWITCH) == f.switch for f in FIELDS)
