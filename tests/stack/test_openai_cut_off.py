"""An `openai` answer cut off by its token limit is a completed Turn, judged, its finish reason
kept (schema 6) and shown: over real HTTP, from the CLI's .json to the app's Case screen."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from textual.widgets import Static

from passk_tui.core.inputs.settings import Settings
from passk_tui.store import Store
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.case import CaseScreen
from tests.support.app import run_to_end
from tests.support.cli import environment, run_async
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.old_stores import store_at_schema
from tests.support.openai import exported, openai_agents
from tests.support.records import record

CASES = '[[cases]]\nname = "cut"\ninput = "6 * 7?"\ncheck = { contains = "4" }\n'
#: Two answers cut off at max_tokens (one still holding a "4", one not), then a whole one.
REPLIES = (
    Reply(content="The answer is 4", finish_reason="length"),
    Reply(content="The answer is", finish_reason="length"),
    Reply(content="The answer is 42.", finish_reason="stop"),
)


def suite(folder: Path, endpoint: FakeOpenAI) -> Settings:
    endpoint.push(*REPLIES)
    openai_agents(folder, endpoint.base_url)
    (folder / "cases.toml").write_text(CASES)
    return Settings(
        agent="llm",
        version=1,
        cases_path=str(folder / "cases.toml"),
        attempts=3,
        k=1,
        concurrency=1,
        agents_path=str(folder / "agents.toml"),
    )


async def test_an_answer_cut_off_by_max_tokens_is_judged_and_its_finish_reason_exported(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    suite(tmp_path, endpoint)
    args = ["--agent", "llm", "--version", "1", "--cases", "cases.toml", "--attempts", "3"]
    args += ["--concurrency", "1", "--export", "out.json"]
    code, out, err = await run_async(*args, env=environment(tmp_path / "data"), cwd=tmp_path)
    assert code == 0, err
    assert out.splitlines()[2].split()[:4] == ["cut", "2/3", "1", "0"]  # wrong, not errored
    attempts = exported(tmp_path / "out.json")["attempts"]
    kept = [(a["outcome"], a["status"], a["finish_reason"], a["error"]) for a in attempts]
    assert kept == [
        ("passed", "completed", "length", None),
        ("wrong", "completed", "length", None),
        ("passed", "completed", "stop", None),
    ]


async def test_the_case_screen_says_an_answer_was_cut_off(
    app_env: Path, endpoint: FakeOpenAI
) -> None:
    settings = suite(app_env, endpoint)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        app.controller.start_evaluation(settings, None)
        await run_to_end(pilot)
        app.push_screen(CaseScreen(app.controller.view, 0))
        await pilot.pause()

        def verdict() -> str:
            return str(app.screen.query_one("#attempt-verdict", Static).render())

        assert verdict().startswith("✓ passed · Turn completed · finish: length")
        await pilot.press("down")
        assert verdict().startswith("✗ wrong · Turn completed · finish: length")
        await pilot.press("down")
        assert verdict().startswith("✓ passed · Turn completed") and "finish" not in verdict()


def test_a_schema_5_store_reads_no_finish_reason_and_takes_new_ones(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with store_at_schema(path, 5) as db:
        db.execute(
            "INSERT INTO evaluations (id, created, status, agent, version, attempts, k,"
            " completion_only, concurrency, timeout, cases_path, cases_sha256, case_count)"
            " VALUES ('ev_old', 1.0, 'done', 'demo', 1, 3, 2, 0, 4, 300, 'cases.toml', 'x', 1)"
        )
        db.execute(
            "INSERT INTO attempts VALUES ('ev_old', 0, 1, 0, 'one', 'k1', 'passed', 'completed',"
            " '\"42\"', NULL, NULL, NULL, NULL, 1.0, 2.0, 1.0, NULL, 0)"
        )
    with Store.open(path) as store:
        store.write("ev_old", [replace(record(0, 2), finish_reason="length")])
        stored = store.load("ev_old")
    assert [(r.attempt, r.finish_reason) for r in stored.records] == [(1, None), (2, "length")]
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(attempts)")]
    assert "finish_reason" in columns  # later migrations add columns after it
    assert json.loads(json.dumps(columns))  # the table is readable as it was migrated
