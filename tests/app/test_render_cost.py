"""What a repaint costs is counted, not timed: lines drawn, rows asked for, readings made.

The live grid marks dirty only the lines whose case changed, the Results table asks for
the cells of the rows on screen only, and the grid's intervals come from a per-case
reading that is the evaluation's reading of that case.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region

from passk_tui.core.attempt import Outcome
from passk_tui.core.stats.progress import Progress
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.widgets.attempts_grid import AttemptsGrid
from passk_tui.tui.widgets.line_table import LineTable, TableColumn
from tests.support.app import synthetic_view
from tests.support.records import record


class GridApp(App[None]):
    def __init__(self, progress: Progress, interval=None) -> None:
        super().__init__()
        self.progress = progress
        self.interval = interval

    def compose(self) -> ComposeResult:
        yield AttemptsGrid(self.progress, interval=self.interval, interval_header="pass@3 95%")


async def test_the_grid_marks_dirty_only_the_lines_whose_case_changed(monkeypatch) -> None:
    progress = Progress([f"case-{i}" for i in range(300)], 5, 3)
    app = GridApp(progress)
    async with app.run_test(size=(100, 30)) as pilot:
        grid = app.query_one(AttemptsGrid)
        await pilot.pause()
        grid.refresh_from_progress()  # the first tick paints the whole frame
        dirty: list[tuple[Region, ...]] = []
        monkeypatch.setattr(grid, "refresh", lambda *regions, **kw: dirty.append(regions))

        progress.add([record(2, 1)])
        assert grid.refresh_from_progress()
        assert dirty == [(Region(0, 3, grid.size.width, 1),)]  # case 2 is line 3 (1: header)

        dirty.clear()
        progress.add([record(250, 1, Outcome.WRONG)])  # a case below the screen
        assert grid.refresh_from_progress()
        assert dirty == []

        dirty.clear()
        assert not grid.refresh_from_progress()  # nothing moved: nothing asked
        assert dirty == []


async def test_rows_alike_share_their_figures_drawn_once_per_kind_of_row() -> None:
    """At 200 in flight a pass of the run changes every row on screen at once: the part
    right of the names is drawn once per kind of row (here: all alike), not once per row."""
    progress = Progress([f"case-{i}" for i in range(300)], 5, 3)
    asked: list[int] = []
    app = GridApp(progress, lambda case_index: asked.append(case_index))
    async with app.run_test(size=(100, 30)) as pilot:
        grid = app.query_one(AttemptsGrid)
        await pilot.pause()
        assert asked == [0, 1]  # 28 rows on screen, all pending: the cursor's, then the rest
        progress.add([record(i, 1) for i in range(40)])
        grid.refresh_from_progress()
        await pilot.pause()
        assert asked == [0, 1, 0, 1]
        assert "case-27" in str(grid.render_line(28).text)  # each its own name still


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LineTable()


async def test_the_table_asks_only_for_the_rows_on_screen() -> None:
    asked: list[int] = []

    def cells(position: int) -> list[Text]:
        asked.append(position)
        return [Text(f"row {position}"), Text(str(position * 2))]

    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LineTable)
        columns = [TableColumn("n", Text("name"), 12), TableColumn("v", Text("value"), 8)]
        table.set_rows(columns, 10_000, cells)
        await pilot.pause()
        assert 0 < len(set(asked)) <= 20
        assert max(asked) < 20
        asked.clear()
        table.focus()
        await pilot.press("end")
        assert table.cursor_row == 9_999
        assert 0 < len(set(asked)) <= 20 and min(asked) >= 9_980
        assert [str(t) for t in table.get_row_at(9_999)] == ["row 9999", "19998"]


async def test_the_results_table_is_filled_once_as_it_opens_and_again_at_a_new_width(
    monkeypatch,
) -> None:
    """Its first layout (at the width it was mounted at) fills nothing again: a 1,000-case
    table was filled twice, a fifth of the screen's first frame."""
    filled: list[int] = []
    set_rows = LineTable.set_rows

    def counted(table: LineTable, *args, **kw) -> None:
        filled.append(args[1])
        set_rows(table, *args, **kw)

    monkeypatch.setattr(LineTable, "set_rows", counted)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(120, 30)) as pilot:
        app.push_screen(ResultsScreen(synthetic_view(5)))
        await pilot.pause()
        assert filled == [4]
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert filled == [4, 4]


def test_a_case_reading_is_the_evaluations_reading_of_that_case() -> None:
    for settings_change in ({}, {"confidence": 0.9}, {"require": None}):
        view = synthetic_view(12)
        view.settings = replace(view.settings, **settings_change)
        whole = view.reading()
        assert [view.case_reading(i) for i in range(4)] == list(whole.cases)


def test_a_case_reading_follows_its_cells_and_no_others() -> None:
    view = synthetic_view(6)
    view.settings = replace(view.settings, attempts=8, require=Fraction(1, 2), confidence=0.9)
    before = [view.case_reading(i) for i in range(4)]
    view.progress.add([record(1, 7, Outcome.WRONG), record(1, 8, Outcome.WRONG)])
    view.progress.version += 1
    after = [view.case_reading(i) for i in range(4)]
    assert after[0] is before[0] and after[2] is before[2]  # untouched: kept, not read again
    assert after[1] != before[1]
    assert after == list(view.reading().cases)


class ClickedTable(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[str, object]] = []

    def compose(self) -> ComposeResult:
        yield LineTable()

    def on_line_table_header_selected(self, event: LineTable.HeaderSelected) -> None:
        self.heard.append(("header", event.column_key))

    def on_line_table_row_selected(self, event: LineTable.RowSelected) -> None:
        self.heard.append(("row", event.cursor_row))


async def test_a_click_on_a_heading_sorts_and_a_second_click_on_a_row_opens_it() -> None:
    app = ClickedTable()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(LineTable)
        columns = [TableColumn("n", Text("name"), 12), TableColumn("v", Text("value"), 8)]
        table.set_rows(columns, 50, lambda p: [Text(f"row {p}".ljust(12)), Text(str(p).ljust(8))])
        await pilot.pause()
        await pilot.click(LineTable, offset=(14, 0))  # the second heading
        await pilot.click(LineTable, offset=(2, 3))  # row 2: the cursor moves there
        await pilot.pause()
        assert table.cursor_row == 2 and app.heard == [("header", "v")]
        await pilot.click(LineTable, offset=(2, 3))  # the cursor's row: open it
        await pilot.pause()
        assert app.heard == [("header", "v"), ("row", 2)]
