"""Pilot tests: what an evaluation cost on the Results and Case screens and in the durations view."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from textual.widgets import DataTable, Static

from passk_tui.core.inputs.price import Price
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.costs import CostsScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.view import EvaluationView
from tests.support.app import synthetic_view

SIZE = (120, 36)


def priced_view() -> EvaluationView:
    """The synthetic evaluation with usage on every attempt, priced and spent by its budget."""
    view = synthetic_view(4)
    for rows in view.progress.records:
        rows[:] = [replace(r, usage={"input_tokens": 1000, "output_tokens": 100}) for r in rows]
    price = Price(Fraction("0.15"), Fraction("0.60"))
    settings = replace(view.settings, price=price, budget_runs=16, attempts=5)
    return replace(view, settings=settings, stored_reason="budget spent")


def text(app: PasskApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_results_case_and_durations_show_what_it_cost(app_env: Path) -> None:
    view = priced_view()
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ResultsScreen(view))
        await pilot.pause()
        # 16 attempts of 1,000 in and 100 out at 0.15 / 0.60: 16 x $0.00021 = $0.00336.
        cost = text(app, "#results-cost")
        assert "cost $0.0034 in all (at 0.15 in / 0.6 out per million tokens)" in cost
        assert "tokens: 16,000 in / 1,600 out" in cost
        assert "budget spent: 4 cases got fewer attempts than planned" in cost
        assert "Done" in text(app, "#results-status") and "budget spent" in text(
            app, "#results-status"
        )
        app.push_screen(CaseScreen(view, 0))  # steady: 4 of 4 passed
        await pilot.pause()
        figures = text(app, "#case-figures")
        assert "tokens in 4,000 (p50 1,000 p95 1,000) · out 400 (p50 100 p95 100)" in figures
        assert "cost $0.00084, per pass $0.00021" in figures
        app.push_screen(CostsScreen(view))
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        broken = [str(cell).strip() for cell in table.get_row_at(2)]
        assert broken[:4] == ["broken-tool", "4", "$0.00084", "-"]  # errored, paid, none passed


async def test_nothing_reported_and_no_price_shows_no_cost_line(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ResultsScreen(synthetic_view(3)))
        await pilot.pause()
        assert not app.screen.query_one("#results-cost", Static).display


def priced_stored(evaluation_id: str, price: Price | None):
    from passk_tui.core.attempt import Outcome
    from passk_tui.core.inputs.settings import Settings
    from passk_tui.core.run.cases import Case
    from passk_tui.store import Store
    from tests.support.records import record

    settings = Settings("bot", 1, "/x/c.toml", attempts=2, k=1, price=price)
    cases = [Case("only", "q", None)]
    records = [
        record(0, a, Outcome.PASSED, case="only", usage={"input_tokens": 1000, "output_tokens": 0})
        for a in (1, 2)
    ]
    with Store.open() as store:
        store.create_evaluation(evaluation_id, settings, cases, "h", created=1.0)
        store.write(evaluation_id, records)
        store.finish(evaluation_id, "done")
        return store.load(evaluation_id)


async def test_compare_shows_cost_per_pass_for_a_and_b_under_its_table(app_env: Path) -> None:
    from passk_tui.store.comparison import compare_stored
    from passk_tui.tui.screens.compare.screen import CompareScreen

    a = priced_stored("ev_a", Price(Fraction(1), Fraction(0)))
    b = priced_stored("ev_b", None)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(CompareScreen(compare_stored(a, b)))
        await pilot.pause()
        notes = text(app, "#compare-notes")
        assert "cost per passed attempt, A -> B: only $0.0010 -> -" in notes
        assert "cost in all: A $0.0020, B -" in notes
