"""Snapshots of the plotted views at 80x24: the forest of per-case intervals, a case's curve over k.

Update after a deliberate change with ``pytest tests/app/test_plot_snapshots.py --snapshot-update``
and look at the SVGs before committing them.
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.curve import CurveScreen
from passk_tui.tui.screens.forest import ForestScreen
from tests.support.demo_store import snapshot_view

SIZE = (80, 24)


class TestPlots:
    def test_forest_of_intervals_with_the_gate(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.push_screen(ForestScreen(snapshot_view()))
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_curve_of_a_flaky_case(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.push_screen(CurveScreen(snapshot_view(), 2))  # json-shape: 3 of 5 passed
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
