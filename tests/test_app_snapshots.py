"""Snapshot tests of each screen (pytest-textual-snapshot); rates, clocks and durations are off.

Update after a deliberate change with ``pytest tests/test_app_snapshots.py --snapshot-update``
and look at the SVGs before committing them.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from textual.pilot import Pilot

from passk_tui.tui.app import PasskApp
from passk_tui.tui.form import blank_form
from tests.test_app_support import app_env, run_to_end, scripted, start_mid_run

__all__ = ["app_env"]

SIZE = (120, 36)


class TestConfigure:
    def test_fresh_start_offers_the_demo(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(form=blank_form(), offer_demo=True, show_timing=False)
        assert snap_compare(app, terminal_size=SIZE)

    def test_errors_beside_their_fields(self, app_env: Path, snap_compare) -> None:
        form = blank_form() | {
            "agent": "scripted",
            "version": "2",
            "cases": "cases.toml",
            "attempts": "3",
            "k": "5",
            "require": "1.2",
        }
        app = PasskApp(form=form, show_timing=False)
        assert snap_compare(app, terminal_size=SIZE)


class TestRun:
    def test_mid_run(self, app_env: Path, snap_compare) -> None:
        """One case answers, the other blocks: two attempts done, two in flight, two pending."""
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            await start_mid_run(pilot)
            await pilot.pause(0.3)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


class TestResults:
    def test_gate_failed(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.start_evaluation(scripted(require=Fraction(91, 100)), None)
            await run_to_end(pilot)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_only_problem_cases_sorted_by_errored(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.start_evaluation(scripted(), None)
            await run_to_end(pilot)
            await pilot.press("f", "e")

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


class TestCase:
    def test_attempts_of_a_mixed_case(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.start_evaluation(scripted(), None)
            await run_to_end(pilot)
            await pilot.press("down", "down", "down", "enter", "down", "down")
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
