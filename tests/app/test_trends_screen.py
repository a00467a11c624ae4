"""History's Trends view: a nightly series' cases with the flaky one marked, each case's pass@1
over time drawn with its intervals, at 80x24 and 160x50."""

from __future__ import annotations

import threading
from fractions import Fraction
from pathlib import Path

import pytest
from textual.widgets import Static

from passk_tui.core.stats.rates.intervals import Interval
from passk_tui.core.stats.trends.flakiness import Measurement
from passk_tui.core.stats.trends.trend import TrendPoint
from passk_tui.store import Store
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.trends.plot import TrendPlot, draw_trend
from passk_tui.tui.screens.trends.screen import TrendsScreen
from passk_tui.tui.widgets.row_table import RowTable
from tests.support.app import wait_for
from tests.support.nightly import NIGHTS, store_nightly_series


def cells(table: RowTable) -> list[list[str]]:
    return [
        [str(getattr(cell, "plain", cell)).strip() for cell in table.get_row_at(row)]
        for row in range(table.row_count)
    ]


def plot_text(plot: TrendPlot) -> str:
    return "\n".join("".join(text for text, _ in line) for line in draw_trend(
        plot.points, plot.content_size.width, plot.content_size.height
    ))  # fmt: skip


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_history_opens_the_trends_of_the_chosen_agent(
    app_env: Path, size: tuple[int, int]
) -> None:
    with Store.open() as store:
        store_nightly_series(store)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=size) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TrendsScreen)
        await wait_for(pilot, lambda: screen.result is not None)
        table = screen.query_one(RowTable)
        assert cells(table) == [
            ["steady", "7", "0", "no", "-"],
            ["⚑ flipper", "7", "4", "⚑ yes", "-"],
            ["moved", "7", "0", "no", "v2▼"],
            ["hard", "7", "0", "no", "-"],
        ]
        title = str(screen.query_one("#trends-title", Static).render())
        assert title.startswith("nightly-bot  ⚑ 1 flaky  7 evaluations of v1..v3")
        await pilot.press("down", "down")  # to "moved"
        await pilot.pause()
        plot = screen.query_one(TrendPlot)
        assert [p.version for p in plot.points] == [1, 1, 1, 1, 2, 2, 3]
        drawn = plot_text(plot)
        # Four passing nights, then three that are not: a mark each, readable without colour.
        assert drawn.count("●") == 4 and drawn.count("✗") == 3
        assert drawn.count("┊") == 2 * (plot.content_size.height - 2)  # two version changes
        assert drawn.splitlines()[-1].split() == ["v1", "v2", "v3"]
        # Nothing cut: every line of the plot fits the widget.
        assert all(len(line) <= plot.content_size.width for line in drawn.splitlines())
        legend = str(screen.query_one("#trends-legend", Static).render())
        assert "version 1 -> 2: regressed 1.00 -> 0.15 (p <0.001)" in legend
        await pilot.press("f")
        await pilot.pause()
        assert cells(table) == [["⚑ flipper", "7", "4", "⚑ yes", "-"]]
        heading = str(screen.query_one("#trends-case", Static).render())
        assert heading.startswith("flipper  ⚑ 4 verdict changes within a version")
        assert len(heading) <= size[0] - 2  # one line at 80 columns


async def test_trends_of_an_empty_store_says_so_in_one_line(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(TrendsScreen("nobody"))
        title = app.screen.query_one("#trends-title", Static)
        await wait_for(pilot, lambda: not str(title.render()).startswith("Reading"))
        assert str(title.render()).startswith("no evaluations stored yet (")


def point(version: int, passed: int, verdict: bool | None) -> TrendPoint:
    rate = Fraction(passed, 10)
    return TrendPoint("ev", 0.0, version, 10, rate, Interval(0.0, 1.0), verdict, False)


def test_more_evaluations_than_columns_show_the_newest_one_column_each() -> None:
    points = [point(1 + i // 50, 5, None) for i in range(200)]
    lines = draw_trend(points, 60, 10)
    plot_width = 60 - 6
    assert all(len("".join(t for t, _ in line)) <= 60 for line in lines)
    marks = "".join(t for line in lines for t, _ in line).count("○")
    assert marks == plot_width  # the newest plot_width evaluations, one column each
    # The newest 54 are the last 4 of version 3 and the 50 of version 4.
    assert "".join(t for t, _ in lines[-1]).split() == ["v3", "v4"]


async def test_trends_read_the_agent_of_the_evaluation_chosen_in_history(app_env: Path) -> None:
    with Store.open() as store:
        store_nightly_series(store, agent="older-bot", first=1_700_000_000.0)
        store_nightly_series(store)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("end", "t")  # the oldest evaluation: older-bot's
        screen = app.screen
        assert isinstance(screen, TrendsScreen)
        await wait_for(pilot, lambda: screen.result is not None)
        title = str(screen.query_one("#trends-title", Static).render())
        assert title.startswith("older-bot  ⚑ 1 flaky  7 evaluations of v1..v3, 2023-11-")


async def test_flaky_only_with_no_flaky_case_says_so(app_env: Path) -> None:
    with Store.open() as store:  # one night of each version: nothing to flip
        store_nightly_series(store, nights=(NIGHTS[0], NIGHTS[4]))
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(TrendsScreen())
        screen = app.screen
        assert isinstance(screen, TrendsScreen)
        await wait_for(pilot, lambda: screen.result is not None)
        await pilot.press("f")
        await pilot.pause()
        assert screen.query_one(RowTable).row_count == 0
        heading = str(screen.query_one("#trends-case", Static).render())
        assert heading == "No flaky case: every verdict held within its version."


async def test_leaving_trends_before_the_store_is_read_is_no_error(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from passk_tui.store import trends

    with Store.open() as store:
        store_nightly_series(store)
    release, returned = threading.Event(), threading.Event()
    read = trends.agent_series

    def held(store: Store, agent: str | None = None) -> tuple[str, list[Measurement]]:
        release.wait(10)
        try:
            return read(store, agent)
        finally:
            returned.set()

    monkeypatch.setattr(trends, "agent_series", held)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(TrendsScreen())
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TrendsScreen)
        release.set()
        await wait_for(pilot, returned.is_set)
        for _ in range(5):
            await pilot.pause(0.05)
        assert app.is_running and app.return_code is None
