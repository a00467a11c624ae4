"""A run started from flags begins before the app is built (tui/app/early_start.py): the app
takes that run over, and no attempt runs twice."""

from __future__ import annotations

from pathlib import Path

from passk_tui.evaluations.new import new_evaluation
from passk_tui.store.database import Store
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.early_start import start_early
from passk_tui.tui.screens.results.screen import ResultsScreen
from tests.support.app import run_to_end, scripted


async def test_a_run_begun_before_the_app_is_taken_over_and_each_attempt_runs_once(
    app_env: Path,
) -> None:
    evaluation = new_evaluation(scripted(concurrency=4), None)
    running = await start_early(evaluation)  # its first Runs out before the app exists
    app = PasskApp(start=evaluation, running=running, show_timing=False)
    async with app.run_test() as pilot:
        await run_to_end(pilot)
        assert isinstance(app.screen, ResultsScreen)
    with Store.open() as store:
        stored = store.load(evaluation.evaluation_id)
    cases = len(evaluation.cases)
    assert stored.status == "done"
    assert sorted((r.case_index, r.attempt) for r in stored.records) == [
        (c, a) for c in range(cases) for a in range(1, 6)
    ]
