"""Snapshots of the Case screen's split: the attempts list, and beside it the attempt under the
cursor (its verdict, answer, and a failing one's diff against a passing one), at 80x24 and
160x50, from the stored demo evaluation (no agent runs). Also the split opened from an answer
group and from an error group (Enter there lists just that group's attempts).

Update after a deliberate change with ``pytest tests/app/test_split_snapshots.py
--snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.answers import AnswersScreen
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.errors import ErrorsScreen
from tests.support.demo_store import snapshot_view

SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
CAPITAL, SUMMARY = 1, 3


class TestSplit:
    @SIZES
    def test_a_wrong_attempt_beside_the_list_with_its_diff(
        self, app_env: Path, snap_compare, size
    ) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.push_screen(CaseScreen(snapshot_view(), CAPITAL))
            await pilot.pause(0.2)
            await pilot.press("down", "down")  # attempt 3: Sydney, against attempt 2's Canberra
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=size, run_before=run_before)

    @SIZES
    def test_an_errored_attempt_beside_the_list(self, app_env: Path, snap_compare, size) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.push_screen(CaseScreen(snapshot_view(), SUMMARY))
            await pilot.pause(0.2)
            await pilot.press("down", "down")  # attempt 3: the connection was reset
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=size, run_before=run_before)

    def test_enter_on_an_answer_group_lists_its_attempts(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.push_screen(AnswersScreen(snapshot_view(), CAPITAL))
            await pilot.pause(0.2)
            await pilot.press("enter")  # Sydney x4
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)

    def test_enter_on_an_error_group_lists_its_attempts(self, app_env: Path, snap_compare) -> None:
        app = PasskApp(show_timing=False)

        async def run_before(pilot: Pilot) -> None:
            app.push_screen(ErrorsScreen(snapshot_view()))
            await pilot.pause(0.2)
            await pilot.press("enter")  # the weather tool's upstream timeout
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
