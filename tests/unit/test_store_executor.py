"""--executor and --ray-address are stored with the evaluation, so that a resume runs
where the evaluation ran; a store from before them reads as run here."""

from __future__ import annotations

from pathlib import Path

from passk_tui.core.inputs.settings import Settings
from passk_tui.evaluations.resume_rules import resumed_settings
from passk_tui.store import Store
from passk_tui.store.schema import SCHEMA_VERSION
from tests.support.old_stores import insert_old_evaluation, store_at_schema

ON_RAY = Settings(
    agent="a", version=1, cases_path="/c.toml", executor="ray", ray_address="10.0.0.1:6379"
)


def test_a_resume_runs_where_the_evaluation_ran_unless_told_otherwise(tmp_path: Path) -> None:
    with Store.open(tmp_path / "passk.db") as store:
        store.create_evaluation("ev_ray", ON_RAY, [], "x")
        stored = store.load("ev_ray")
    assert (stored.settings.executor, stored.settings.ray_address) == ("ray", "10.0.0.1:6379")
    resumed = resumed_settings(stored, {})
    assert (resumed.executor, resumed.ray_address) == ("ray", "10.0.0.1:6379")
    moved = resumed_settings(stored, {"executor": "ray", "ray_address": "10.0.0.2:6379"})
    assert moved.ray_address == "10.0.0.2:6379"
    here = resumed_settings(stored, {"executor": "local"})
    assert here.executor == "local"


def test_a_store_from_before_reads_as_run_here(tmp_path: Path) -> None:
    with store_at_schema(tmp_path / "passk.db", SCHEMA_VERSION - 1) as db:
        insert_old_evaluation(db)
    with Store.open(tmp_path / "passk.db") as store:
        settings = store.load("ev_old").settings
    assert (settings.executor, settings.ray_address) == ("local", None)
