"""Pilot tests of intervals on the screens, the configure fields, more attempts, and Compare."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from textual.widgets import Input, Static

from passk_tui.core.render.compare_text import suite_line
from passk_tui.core.stats.comparing.anytime_compare import ANYTIME_METHOD
from passk_tui.core.stats.rates.interval_choice import SHORT_OF_PLAN
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON, Interval
from passk_tui.core.text.figure_text import interval_text
from passk_tui.store.comparison import compare_stored
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.dialogs.more_attempts import MoreAttemptsScreen
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.compare.compare_case import CompareCaseScreen
from passk_tui.tui.screens.compare.screen import CompareScreen
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.widgets.attempts_grid import AttemptsGrid
from passk_tui.tui.widgets.grid_lines import SAMPLED_MARK
from tests.support.app import (
    TABLES,
    blocking,
    column_keys,
    run_to_end,
    scripted,
    start_mid_run,
    stored,
    stored_pair,
    wait_for,
)
from tests.support.judging import scipy_running

SIZE = (120, 36)


def column(table, key: str) -> list[str]:
    keys = column_keys(table)
    return [str(table.get_row_at(i)[keys.index(key)]).strip() for i in range(table.row_count)]


async def test_results_show_each_interval_as_a_bar_and_the_gate_verdict(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(require=Fraction(91, 100)), None)
        await run_to_end(pilot)
        table = app.screen.query_one(TABLES)
        assert column(table, "gate") == ["pass", "pass", "fail", "fail"]
        bars = column(table, "bar")
        assert all("●" in bar for bar in bars)
        assert "┊" in bars[2]  # the gate at 0.91 (mixed's estimate, 0.90, sits on it)
        # broken-tool, 0 of 5: its bar starts at 0 (the estimate) and its range ends before 1.
        assert bars[2].startswith("●") and "┤" in bars[2]
        cases = str(app.screen.query_one("#results-cases", Static).render())
        assert "intervals: 95% exact (Clopper-Pearson)" in cases
        await pilot.press("enter")
        assert isinstance(app.screen, CaseScreen)
        figures = str(app.screen.query_one("#case-figures", Static).render())
        assert "pass@1 0.47-1.00" in figures and "pass@3 0.85-1.00" in figures
        assert "pass^3 0.10-1.00" in figures


async def test_the_run_grid_marks_the_cases_still_sampled(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_mid_run(pilot)
        await pilot.pause(0.2)
        grid = app.screen.query_one(AttemptsGrid)
        stuck = "".join(segment.text for segment in grid.render_line(2))
        assert stuck.split()[:2] == ["stuck", SAMPLED_MARK]
        assert stuck.split()[-1] == "-"  # fewer than k attempts: no pass@k interval
        app.controller.cancel_evaluation()
        await run_to_end(pilot)


async def test_configure_checks_confidence_and_baseline(app_env: Path) -> None:
    form = blank_form() | {"agent": "scripted", "version": "1", "cases": "cases.toml"}
    app = PasskApp(form=form, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen

        async def typed(field: str, value: str, wanted: str) -> str:
            """Type, then read the field's message once it says ``wanted`` (or after 10 s:
            a loaded machine may take more than one pause to revalidate)."""
            screen.query_one(f"#input-{field}", Input).value = value
            message = ""
            for _ in range(100):
                await pilot.pause(0.1 if message else None)
                message = str(screen.query_one(f"#message-{field}", Static).render())
                if wanted in message:
                    break
            return message

        assert "strictly between 0 and 1" in await typed("confidence", "1.5", "between")
        await typed("require", "0.8", "")
        assert "undecided" in await typed("confidence", "0.9", "undecided")
        assert "must differ from the version (1)" in await typed("baseline", "1", "differ")
        assert "no version 2 (versions: 1)" in await typed("baseline", "2", "no version 2")
        assert "none: one version" in await typed("baseline", "", "none: one")
        assert screen.check.confidence == 0.9 and screen.check.settings is not None


async def test_compare_puts_regressions_first_and_opens_a_case_with_a_diff(app_env) -> None:
    a, b = stored_pair()
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(CompareScreen(compare_stored(a, b)))
        await pilot.pause()
        table = app.screen.query_one(TABLES)
        assert column(table, "case")[:2] == ["steady", "flaky"]
        assert column(table, "verdict")[:2] == ["regressed", "improved"]
        assert column(table, "B err")[0] == "6 !"  # mostly errored: the platform's
        assert column(table, "A attempts")[0] == "✓" * 10
        notes = str(app.screen.query_one("#compare-notes", Static).render())
        assert "steady: the drop is mostly errored attempts" in notes
        await pilot.press("s")  # swap: B is the baseline now, so steady improved
        assert column(table, "verdict")[:2] == ["regressed", "improved"]
        assert column(table, "case")[:2] == ["flaky", "steady"]
        await pilot.press("s", "enter")
        assert isinstance(app.screen, CompareCaseScreen)
        title = str(app.screen.query_one("#compare-diff-title", Static).render())
        # steady: A's first pass against B's first failing answer (its errored ones have none).
        assert "- A attempt 1" in title
        assert "+ B attempt 1" in title  # B's only answers pass: the first of each, then


async def test_history_marks_two_and_compares_the_older_as_baseline(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        ids = []
        for _ in range(2):
            app.controller.start_evaluation(scripted(), None)
            await run_to_end(pilot)
            ids.append(app.controller.view.evaluation_id)
        await pilot.press("f2")
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("c")  # nothing marked: it says how
        await pilot.press("space", "down", "space")
        assert sorted(app.screen.marked) == sorted(ids)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        compared = app.screen.compared
        assert (compared.baseline.id, compared.candidate.id) == (ids[0], ids[1])
        assert column(app.screen.query_one(TABLES), "verdict") == ["unclear"] * 4


async def test_more_attempts_extends_the_evaluation_in_place(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(attempts=3), None)
        await run_to_end(pilot)
        evaluation_id = app.controller.view.evaluation_id
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("m")
        assert isinstance(app.screen, MoreAttemptsScreen)
        cost = app.screen.query_one("#more-attempts-cost", Static)
        app.screen.query_one(Input).value = "3"
        await pilot.pause()
        assert "more than the 3 attempts" in str(cost.render())
        app.screen.query_one(Input).value = "5"
        await pilot.pause()
        assert "8 more Runs" in str(cost.render())
        await pilot.press("enter")
        question = str(app.screen.query_one("#confirm-question", Static).render())
        assert "to 5 attempts per case" in question and "8 more Runs" in question
        await pilot.press("y")
        # The 8 Runs may all end between two looks: wait for the grid to grow, not for "running".
        await wait_for(
            pilot, lambda: [len(row) for row in app.controller.view.progress.cells] == [5] * 4
        )
        await run_to_end(pilot)
        assert app.controller.view.evaluation_id == evaluation_id
        assert [len(row) for row in app.controller.view.progress.cells] == [5, 5, 5, 5]
        assert app.controller.view.progress.finished == 20
    from passk_tui.store import Store

    with Store.open() as store:
        extended = store.load(evaluation_id)
        assert extended.settings.attempts == 5 and extended.missing == 0
        assert [s.recorded for s in store.list_evaluations()] == [20]
        assert [s.extent.known for s in store.list_evaluations()] == [20]


async def test_the_run_screen_shows_the_anytime_valid_interval_while_attempts_land(
    app_env: Path,
) -> None:
    """A user may stop on any look: while a fixed-n run is short of its plan, every interval is
    the confidence sequence's (scipy's running intersection), and a cancel keeps it so."""
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(replace(blocking(), k=1), None)
        progress = app.controller.view.progress
        await wait_for(pilot, lambda: progress.finished == 2 and progress.in_flight == 2)
        await pilot.pause(0.3)
        grid = app.screen.query_one(AttemptsGrid)
        quick = "".join(segment.text for segment in grid.render_line(1)).split()
        low, high = scipy_running(b"\x01\x01", 0.95)
        anytime = interval_text(Interval(low, high))
        assert quick[0] == "quick" and quick[-1] == anytime
        assert anytime != interval_text(CLOPPER_PEARSON.rate(2, 2, 0.95))  # the exact 0.15-1.00
        settings_line = str(app.screen.query_one("#run-settings", Static).render())
        assert "intervals anytime-valid until the last attempt is in, then exact" in settings_line
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        await pilot.press("r")
        assert isinstance(app.screen, ResultsScreen)
        cases = str(app.screen.query_one("#results-cases", Static).render())
        assert f"intervals: 95% anytime-valid (beta-binomial mixture), {SHORT_OF_PLAN}" in " ".join(
            cases.split()
        )


async def test_compare_shows_the_suite_line_and_names_the_anytime_test_for_an_adaptive_side(
    app_env: Path,
) -> None:
    a, b = stored_pair()
    adaptive = replace(b, settings=replace(b.settings, max_attempts=40))
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        for candidate, test in (
            (b, "Fisher's exact test"),
            (adaptive, "anytime-valid e-value test"),
        ):
            compared = compare_stored(a, candidate)
            await app.push_screen(CompareScreen(compared))
            await pilot.pause()
            shown = str(app.screen.query_one("#compare-suite", Static).render())
            assert shown == suite_line(compared.comparison)
            assert shown.startswith("suite: B better on 1 case, worse on 1, same on 2; ")
            counts = str(app.screen.query_one("#compare-counts", Static).render())
            assert f"{test} per case, Holm-adjusted" in counts
            notes = str(app.screen.query_one("#compare-notes", Static).render())
            assert (ANYTIME_METHOD in " ".join(notes.split())) == (candidate is adaptive)
            app.pop_screen()
            await pilot.pause()


async def test_compare_shows_a_one_way_suite_as_the_cli_does(app_env: Path) -> None:
    """B never worse (flaky fixed, nothing broken): an infinite odds ratio, one-sided interval."""
    a = stored("ev_a", ("P", "PWW", "E", "E"), 1.0)
    b = stored("ev_b", ("P", "P", "E", "E"), 2.0)
    compared = compare_stored(a, b)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(CompareScreen(compared))
        await pilot.pause()
        shown = str(app.screen.query_one("#compare-suite", Static).render())
    assert shown == suite_line(compared.comparison)
    assert "; odds ratio inf (95% CI " in shown and "-inf), p " in shown


async def test_compare_cuts_long_names_before_the_verdict_on_a_narrow_screen(app_env) -> None:
    a, b = stored_pair()
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(77, 24)) as pilot:  # the table is 80 wide at its widest
        await app.push_screen(CompareScreen(compare_stored(a, b)))
        await pilot.pause()
        table = app.screen.query_one(TABLES)
        assert "broken-…" in column(table, "case")
        assert column(table, "verdict")[:2] == ["regressed", "improved"]
        assert sum(c.width for c in table.columns.values()) <= 77
        await pilot.resize_terminal(120, 24)  # room again: the names whole
        await pilot.pause()
        assert "broken-tool" in column(app.screen.query_one(TABLES), "case")


async def test_results_show_the_interval_digits_beside_the_bar_where_they_fit(
    app_env: Path,
) -> None:
    """As the Run screen does: the range in digits, when the bar stays readable beside it."""
    for size, digits in (((160, 50), True), ((120, 36), True), ((80, 24), False)):
        app = PasskApp(show_timing=False)
        async with app.run_test(size=size) as pilot:
            app.controller.start_evaluation(scripted(require=Fraction(91, 100)), None)
            await run_to_end(pilot)
            table = app.screen.query_one(TABLES)
            keys = column_keys(table)
            assert "bar" in keys
            if not digits:
                assert "range" not in keys, size
                continue
            assert keys.index("range") == keys.index("bar") + 1, size  # the bar, then its ends
            shown = [
                interval_text(app.controller.view.case_reading(i).intervals.pass_at_k)
                for i in range(4)
            ]
            assert column(table, "range") == shown
            assert shown[0] == "0.85-1.00"  # steady, 5 of 5: as its Case screen says
