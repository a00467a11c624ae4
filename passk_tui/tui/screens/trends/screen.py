"""Trends: one agent's cases over its stored evaluations, the flaky ones marked, and each
case's pass@1 over time with its intervals (what `passk-tui history --flaky` prints, drawn)."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.reading.trends import TrendsReading
from passk_tui.core.reading.vocabulary import DEFAULT_CONFIDENCE, Flakiness, Measurement
from passk_tui.core.render.flaky_text import case_move_lines, moves_cell
from passk_tui.core.text.figure_text import level_text
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.screens.trends.plot import VERDICT_MARK, TrendPlot
from passk_tui.tui.screens.view_screen import VIEWS_CSS
from passk_tui.tui.widgets.glyphs import follow_theme, palette
from passk_tui.tui.widgets.key_bar import KeyBar
from passk_tui.tui.widgets.line_text import left_aligned, right_aligned
from passk_tui.tui.widgets.row_table import RowTable

#: Before a flaky case's name and in its ``flaky`` cell: a mark, so colour is not all that says it.
FLAKY_MARK = "⚑"
COLUMNS = ("case", "evals", "changes", "flaky", "moved")


class TrendsScreen(Screen[None]):
    """Per case of one agent: evaluations, verdict changes within a version, flaky, where it
    moved; below, the highlighted case's pass@1 in each evaluation with its interval."""

    CSS_PATH = VIEWS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", tooltip="The screen before"),
        Binding("f", "flaky_only", "Flaky only", tooltip="Only the flaky cases, or every case"),
    ]

    def __init__(self, agent: str | None = None) -> None:
        super().__init__()
        self.agent = agent
        self.series: list[Measurement] = []
        self.result: Flakiness | None = None
        self.trends = TrendsReading([])
        self.flaky_only = False
        #: The case names shown, in the table's order.
        self.shown: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="trends-title", classes="view-line")
        yield RowTable(id="trends-cases")
        yield Static(id="trends-case", classes="view-line")
        yield TrendPlot(id="trends-plot")
        yield Static(id="trends-legend", classes="view-note")
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = "trends"
        self.query_one("#trends-title", Static).update(
            Text("Reading the stored evaluations…", style="dim")
        )
        self._read()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _read(self) -> None:
        """Every evaluation of the agent read from the store, off the screen's thread: a long
        nightly series takes seconds (each evaluation is loaded whole)."""
        from passk_tui.store import Store
        from passk_tui.store.trends import agent_series

        try:
            with Store.open() as store:
                agent, series = agent_series(store, self.agent)
        except (InputError, RunError) as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._read_done, agent, series)

    def _failed(self, problem: str) -> None:
        self.query_one("#trends-title", Static).update(
            Text(terminal_safe(problem), style=palette(self.app).get("outcome-errored", ""))
        )

    def _read_done(self, agent: str, series: list[Measurement]) -> None:
        self.agent, self.series = agent, series
        self.trends = TrendsReading(series)
        self.result = self.trends.flakiness
        self.query_one(RowTable).focus()
        follow_theme(self, self._show)
        self._show()

    def _show(self) -> None:
        if self.result is None or self.agent is None:
            return
        colours = palette(self.app)
        flaky_style = colours.get("outcome-wrong", "")
        self.query_one("#trends-title", Static).update(self._title(flaky_style))
        table = self.query_one(RowTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        cases = [c for c in self.result.cases if c.flaky or not self.flaky_only]
        self.shown = [c.name for c in cases]
        names = [terminal_safe(c.name) for c in cases]
        moves = [moves_cell(self.result, c.name) for c in cases]
        width = max((len(n) for n in names), default=4) + 2
        table.add_column(left_aligned("case"), key="case", width=max(width, 4))
        for label in COLUMNS[1:3]:
            table.add_column(right_aligned(label, len(label)), key=label, width=len(label))
        table.add_column(left_aligned("flaky"), key="flaky", width=5)
        table.add_column(left_aligned("moved"), key="moved", width=max([5, *map(len, moves)]))
        for c, name, moved in zip(cases, names, moves, strict=True):
            style = flaky_style if c.flaky else ""
            table.add_row(
                left_aligned(f"{FLAKY_MARK if c.flaky else ' '} {name}", style),
                right_aligned(str(c.evaluations), len("evals")),
                right_aligned(str(c.verdict_changes), len("changes"), style),
                left_aligned(f"{FLAKY_MARK} yes" if c.flaky else "no", style),
                left_aligned(moved),
            )
        if table.row_count:
            table.move_cursor(row=min(max(cursor, 0), table.row_count - 1))
        self._show_case()

    def _title(self, flaky_style: str) -> Text:
        assert self.result is not None and self.agent is not None
        first, last = (datetime.fromtimestamp(m.created) for m in (self.series[0], self.series[-1]))
        imported = sum(m.imported for m in self.series)
        versions = sorted({m.version for m in self.series})
        title = Text()
        title.append(terminal_safe(self.agent), style="bold")
        flaky = len(self.result.flaky)
        title.append(f"  {FLAKY_MARK} {flaky} flaky", style=flaky_style if flaky else "")
        title.append(
            f"  {len(self.series)} evaluations"
            + (f" ({imported} imported)" if imported else "")
            + f" of v{versions[0]}..v{versions[-1]}, {first:%Y-%m-%d}..{last:%Y-%m-%d}"
        )
        if self.flaky_only:
            title.append("   (flaky only)", style="dim")
        return title

    @on(DataTable.RowHighlighted, "#trends-cases")
    def _highlighted(self) -> None:
        self._show_case()

    def _show_case(self) -> None:
        """The highlighted case's trend, its line, and where it moved."""
        if self.result is None:
            return
        row = self.query_one(RowTable).cursor_row
        heading = self.query_one("#trends-case", Static)
        legend = self.query_one("#trends-legend", Static)
        if not 0 <= row < len(self.shown):
            heading.update("No flaky case: every verdict held within its version.")
            self.query_one(TrendPlot).show([])
            legend.update("")
            return
        name = self.shown[row]
        points = self.trends.case(name)
        line = Text()
        line.append(terminal_safe(name), style="bold")
        case = next(c for c in self.result.cases if c.name == name)
        if case.flaky:
            line.append(
                f"  {FLAKY_MARK} {case.verdict_changes} verdict changes within a version",
                style=palette(self.app).get("outcome-wrong", ""),
            )
        line.append(f"  pass@1, {level_text(DEFAULT_CONFIDENCE)} intervals")
        heading.update(line)
        self.query_one(TrendPlot).show(points)
        marks = (
            f"{VERDICT_MARK[True]} passed (its gate, or all passed)   {VERDICT_MARK[False]} not   "
            f"{VERDICT_MARK[None]} no verdict   ┊ a new version"
        )
        legend.update("\n".join([marks, *case_move_lines(self.result, name)]))

    def action_flaky_only(self) -> None:
        """Only the flaky cases in the table, or every case again."""
        self.flaky_only = not self.flaky_only
        self._show()
