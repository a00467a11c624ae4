"""The retries each attempt took: met over real HTTP, stored (schema 5), kept on resume, shown."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from textual.widgets import DataTable, Static

from passk_tui.core.attempt import Outcome
from passk_tui.core.render.error_groups import error_groups
from passk_tui.store import DB_NAME, Store
from passk_tui.store.schema import SCHEMA_VERSION
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.errors import ErrorsScreen
from passk_tui.tui.view import EvaluationView
from tests.support.cli import KEY, run
from tests.support.demo_store import EVALUATION_ID, demo_records, demo_view_settings
from tests.support.demo_store import SCRIPT as DEMO_SCRIPT
from tests.support.old_stores import store_at_schema
from tests.support.records import record

ECHO_CASES = """\
[[cases]]
name = "echo"
input = "x"
check = { equals = "x" }

[[cases]]
name = "wrong"
input = "y"
check = { equals = "x" }
"""


def stored_records(data: Path) -> list[tuple[str, int, int]]:
    """(case, attempt, retries) of every stored attempt, in order."""
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        stored = store.load(summary.id)
    return [(r.case, r.attempt, r.retries) for r in stored.records]


def test_an_attempt_that_met_n_429s_is_stored_with_n_retries_and_resume_keeps_them(
    make_stack, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.toml"
    cases.write_text(ECHO_CASES)
    stack = make_stack(keys={KEY: None}, refuse_first=2, retry_after="0.01")
    export = tmp_path / "out.json"
    args = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    first = run(
        *args,
        "--attempts",
        "2",
        "--k",
        "1",
        "--export",
        str(export),
        data=tmp_path / "data",
        key=KEY,
        timeout=120,
    )
    assert first.returncode == 0, first.stderr
    assert stack.stats().count("POST /v1/runs", 429) == 2 * 4
    expected = [("echo", 1, 2), ("echo", 2, 2), ("wrong", 1, 2), ("wrong", 2, 2)]
    assert stored_records(tmp_path / "data") == expected
    exported = json.loads(export.read_text())["attempts"]
    assert [(a["case"], a["attempt"], a["retries"]) for a in exported] == expected

    # Extended on resume: the new attempts meet 3 refusals; the stored ones keep their 2.
    stack.config.refuse_first = 3
    resumed = run(
        "--resume", "last", "--attempts", "3", data=tmp_path / "data", key=KEY, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    assert stored_records(tmp_path / "data") == [
        ("echo", 1, 2),
        ("echo", 2, 2),
        ("echo", 3, 3),
        ("wrong", 1, 2),
        ("wrong", 2, 2),
        ("wrong", 3, 3),
    ]


def test_a_schema_4_store_reads_0_retries_and_takes_new_ones(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with store_at_schema(path, 4) as db:
        db.execute(
            "INSERT INTO evaluations (id, created, status, agent, version, attempts, k,"
            " completion_only, concurrency, timeout, cases_path, cases_sha256, case_count)"
            " VALUES ('ev_old', 1.0, 'done', 'demo', 1, 3, 2, 0, 4, 300, 'cases.toml', 'x', 1)"
        )
        db.execute(
            "INSERT INTO attempts VALUES ('ev_old', 0, 1, 0, 'one', 'k1', 'errored', 'failed',"
            " 'null', NULL, '503 unavailable', NULL, NULL, 1.0, 2.0, 1.0, NULL)"
        )
    with Store.open(path) as store:
        store.write("ev_old", [replace(record(0, 2), retries=3)])
        stored = store.load("ev_old")
    assert [(r.attempt, r.retries) for r in stored.records] == [(1, 0), (2, 3)]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_error_groups_carry_each_members_retries() -> None:
    records = [
        replace(record(0, 1, Outcome.ERRORED), error="503", retries=4),
        replace(record(0, 2, Outcome.ERRORED), error="503"),
        replace(record(1, 1, Outcome.ERRORED), error="503", retries=1),
        replace(record(1, 2), retries=7),  # passed: no group counts it
    ]
    [group] = error_groups(records)
    assert group.retries == (4, 0, 1) and group.total_retries == 5


def stored_view(retries: dict[tuple[str, int], int]) -> EvaluationView:
    """The views' demo data with ``retries`` on some (case, attempt), through the store."""
    from passk_tui import demo
    from passk_tui.core.run.cases import load_cases

    records = [replace(r, retries=retries.get((r.case, r.attempt), 0)) for r in demo_records()]
    with Store.open() as store:
        store.create_evaluation(
            EVALUATION_ID, demo_view_settings(), load_cases(demo.CASES), "0" * 64
        )
        store.write(EVALUATION_ID, records)
        store.finish(EVALUATION_ID, "done")
        stored = store.load(EVALUATION_ID)
    return EvaluationView(
        stored.id, stored.settings, stored.progress(), stored.cases, stored_status="done"
    )


def labels(table: DataTable) -> list[str]:
    return [str(column.label).strip() for column in table.columns.values()]


def column(table: DataTable, label: str) -> list[str]:
    index = labels(table).index(label)
    return [str(table.get_row_at(row)[index]).strip() for row in range(table.row_count)]


WEATHER = list(DEMO_SCRIPT).index("weather-tool")
ARITHMETIC = list(DEMO_SCRIPT).index("arithmetic")


async def test_the_case_screen_shows_retries_only_for_a_case_that_retried(app_env: Path) -> None:
    view = stored_view({("weather-tool", 1): 3, ("weather-tool", 5): 1})
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = CaseScreen(view, WEATHER)
        app.push_screen(screen)
        await pilot.pause()
        table = screen.query_one(DataTable)
        assert labels(table) == ["attempt", "outcome", "Turn status", "duration", "retries"]
        assert column(table, "retries") == ["3", "0", "0", "0", "1"]
        assert "· 3 retries" in str(screen.query_one("#attempt-verdict", Static).render())
        screen.show_case(ARITHMETIC)  # no attempt of it retried: the column goes
        await pilot.pause()
        assert labels(table) == ["attempt", "outcome", "Turn status", "duration"]


async def test_the_errors_view_shows_each_groups_retries(app_env: Path) -> None:
    view = stored_view({("weather-tool", 1): 3, ("weather-tool", 4): 2, ("arithmetic", 1): 9})
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ErrorsScreen(view)
        app.push_screen(screen)
        await pilot.pause()
        summary = str(screen.query_one("#errors-summary", Static).render())
        assert "3 kinds of error, 5 retries before they ended" in summary  # not the passed 9
        table = screen.query_one(DataTable)
        assert labels(table) == ["count", "retries", "cases", "error"]
        assert column(table, "retries") == ["5", "0", "0"]
        detail = str(screen.query_one("#errors-detail", Static).render())
        assert "weather-tool (3): #1 (3 retries) #2 #4 (2 retries)" in detail


async def test_the_errors_view_has_no_retries_column_when_nothing_retried(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ErrorsScreen(stored_view({}))
        app.push_screen(screen)
        await pilot.pause()
        assert labels(screen.query_one(DataTable)) == ["count", "cases", "error"]
        assert "retr" not in str(screen.query_one("#errors-detail", Static).render())
