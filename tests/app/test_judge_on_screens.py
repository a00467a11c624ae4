"""Pilot tests: the judge's agreement line on the Results screen, and each vote's text beside the
answer on the Case screen."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.widgets import Static

from passk_tui.core.attempt import Vote
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.view import EvaluationView
from tests.support.app import synthetic_view

SIZE = (120, 40)


def judged_view() -> EvaluationView:
    """The synthetic evaluation, each attempt of its first case judged by three votes, 2 to 1
    on the first attempt and unanimous on the others."""
    view = synthetic_view(4)
    rows = view.progress.records[0]
    for i, record in enumerate(rows):
        said = [True, True, i > 0]
        votes = tuple(
            Vote(n + 1, "grader", 1, v, f"Reason {n + 1}.\nVERDICT: {'PASS' if v else 'FAIL'}")
            for n, v in enumerate(said)
        )
        rows[i] = replace(record, votes=votes)
    return view


def text(app: PasskApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_results_say_the_judge_line_and_the_case_shows_each_vote(app_env: Path) -> None:
    view = judged_view()
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ResultsScreen(view))
        await pilot.pause()
        judged = len(view.progress.records[0])
        unanimous = (judged - 1) * 100 // judged
        line = text(app, "#results-judge")
        assert line.startswith(
            f"judge: grader v1, 3 votes per answer; unanimous on {unanimous}% of answers"
        )
        app.push_screen(CaseScreen(view, 0))
        await pilot.pause()
        assert "votes 2/3 pass" in text(app, "#attempt-verdict")
        said = f"judge: unanimous on {judged - 1} of {judged} answers"
        assert said in text(app, "#case-figures")
        box = app.screen.query_one("#attempt-votes")
        assert box.display and box.border_title == "judge: votes 2/3 pass"
        votes = text(app, "#attempt-votes-lines")
        assert "Run 3 · grader v1 · FAIL" in votes and "Reason 3." in votes


async def test_no_judge_no_line_no_votes(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        view = synthetic_view(3)
        app.push_screen(ResultsScreen(view))
        await pilot.pause()
        assert not app.screen.query_one("#results-judge", Static).display
        app.push_screen(CaseScreen(view, 0))
        await pilot.pause()
        assert not app.screen.query_one("#attempt-votes").display
