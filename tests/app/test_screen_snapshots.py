"""Snapshot tests of each screen (pytest-textual-snapshot); rates, clocks and durations are off.

Each screen at 120x36 and at 80x24 (the smallest terminal it must work in; Configure's cost
fields open at 80x24 and 160x50), and the grid and table at 100 and 1,000 attempts per
case. Update after a deliberate change
with ``pytest tests/app/test_screen_snapshots.py --snapshot-update`` and look at the SVGs
before committing them.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.messages import ResultsOpened
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.run import RunScreen
from tests.support.app import run_to_end, scripted, start_mid_run, synthetic_view

SIZE = (120, 36)
SMALL = (80, 24)
LARGE = (160, 50)
BOTH = pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x36", "80x24"])


async def steady_cursor(pilot: Pilot) -> None:
    """A blinking cursor is drawn or not by the clock: hold it on, so the snapshot is stable."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


class TestConfigure:
    @BOTH
    def test_fresh_start_offers_the_demo(self, app_env: Path, snap_compare, size) -> None:
        app = PasskApp(form=blank_form(), offer_demo=True, show_timing=False)
        assert snap_compare(app, terminal_size=size, run_before=steady_cursor)

    @BOTH
    def test_errors_beside_their_fields(self, app_env: Path, snap_compare, size) -> None:
        form = blank_form() | {
            "agent": "scripted",
            "version": "2",
            "cases": "cases.toml",
            "attempts": "3",
            "k": "5",
            "require": "1.2",
        }
        app = PasskApp(form=form, show_timing=False)
        assert snap_compare(app, terminal_size=size, run_before=steady_cursor)

    @pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
    def test_cost_fields_open_with_a_price_missing(self, app_env: Path, snap_compare, size) -> None:
        """Given a budget, the cost group opens: the price out is asked for beside its field."""
        form = blank_form() | {
            "agent": "scripted",
            "version": "1",
            "cases": "cases.toml",
            "price_in": "0.15",
            "budget_runs": "40",
            "budget_cost": "2.50",
        }
        app = PasskApp(form=form, show_timing=False)
        assert snap_compare(app, terminal_size=size, run_before=steady_cursor)


class TestRun:
    @BOTH
    def test_mid_run(self, app_env: Path, snap_compare, size) -> None:
        """One case answers, the other blocks: two attempts done, two in flight, two pending."""
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            await start_mid_run(pilot)
            await pilot.pause(0.3)

        assert snap_compare(app, terminal_size=size, run_before=run_before)

    @pytest.mark.parametrize("attempts", [100, 1000])
    def test_many_attempts_keep_names_and_figures(
        self, app_env: Path, snap_compare, attempts: int
    ) -> None:
        """The attempts are packed one column each, a window of them: names and figures stay."""
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            await app.push_screen(RunScreen(synthetic_view(attempts)))
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SMALL, run_before=run_before)

    @pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
    @pytest.mark.parametrize("attempts", [5, 100], ids=["fits", "does-not-fit"])
    def test_arrow_keys_only_when_attempts_do_not_fit(
        self, app_env: Path, snap_compare, size, attempts: int
    ) -> None:
        """Earlier / Later attempts on the keys line only where the window can move that way:
        never when every attempt fits, only Later at a long grid's start."""
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            await app.push_screen(RunScreen(synthetic_view(attempts)))
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=size, run_before=run_before)

    def test_many_attempts_window_moved_right(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            await app.push_screen(RunScreen(synthetic_view(100)))
            await pilot.press("right", "right", "down")
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


class TestResults:
    @BOTH
    def test_gate_failed(self, app_env: Path, snap_compare, size) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.controller.start_evaluation(scripted(require=Fraction(91, 100)), None)
            await run_to_end(pilot)

        assert snap_compare(app, terminal_size=size, run_before=run_before)

    def test_only_problem_cases_sorted_by_errored(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.controller.start_evaluation(scripted(), None)
            await run_to_end(pilot)
            await pilot.press("f", "e")

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_100_attempts_per_case(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.post_message(ResultsOpened(synthetic_view(100)))
            await pilot.pause(0.3)
            await pilot.press("p", "p")  # pass@k, then reversed: highest first

        assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


class TestCase:
    @BOTH
    def test_attempts_of_a_mixed_case(self, app_env: Path, snap_compare, size) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.controller.start_evaluation(scripted(), None)
            await run_to_end(pilot)
            await pilot.press("down", "down", "down", "enter", "down")
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=size, run_before=run_before)


class TestHelp:
    def test_help_defines_the_figures_and_glyphs(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)
        assert snap_compare(app, terminal_size=SIZE, press=["f1"])


class TestCompare:
    def test_regressions_first_with_the_mostly_errored_mark(
        self, app_env: Path, snap_compare
    ) -> None:
        from passk_tui.store.comparison import compare_stored
        from passk_tui.tui.screens.compare.screen import CompareScreen
        from tests.support.app import stored_pair

        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            await app.push_screen(CompareScreen(compare_stored(*stored_pair())))
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SMALL, run_before=run_before)

    def test_a_case_in_both_versions_with_the_diff(self, app_env: Path, snap_compare) -> None:
        from passk_tui.store.comparison import compare_stored
        from passk_tui.tui.screens.compare.screen import CompareScreen
        from tests.support.app import stored_pair

        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            await app.push_screen(CompareScreen(compare_stored(*stored_pair())))
            await pilot.pause(0.1)
            await pilot.press("down", "enter", "down")  # flaky; A's second attempt, a wrong one
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
