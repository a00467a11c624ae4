"""The run screen: the attempts grid filling in live, the summary line, cancel with confirmation."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Header, Static

from passk_tui.core.reading.vocabulary import Cell, Interval
from passk_tui.core.render.cost_text import budget_and_price
from passk_tui.core.text.amounts import clock, counted
from passk_tui.core.text.figure_text import gate_text, level_text
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.app.messages import (
    CancelRequested,
    CaseOpened,
    ConfigureRequested,
    ResultsOpened,
)
from passk_tui.tui.dialogs.confirm import ConfirmScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.attempt_detail import NODE_CHARS
from passk_tui.tui.widgets.attempts_grid import AttemptsGrid
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS, THEME_COLOUR, follow_theme, palette
from passk_tui.tui.widgets.grid_lines import SAMPLED_MARK
from passk_tui.tui.widgets.key_bar import KeyBar
from passk_tui.tui.widgets.line_text import parts_line
from passk_tui.tui.widgets.run_summary import LiveLine, pace_text, summary_text
from passk_tui.tui.widgets.search_bar import SearchBar, matching


def _is_live(view: EvaluationView) -> bool:
    """Whether attempts are still landing in ``view`` (its grid's window follows them)."""
    return view.live


def _pass_at_k_interval(view: EvaluationView, case_index: int) -> Interval | None:
    """A case's live pass@k interval, as its grid shows it."""
    return view.case_reading(case_index).intervals.pass_at_k


def _interval_kind(view: EvaluationView) -> str:
    """The method the grid's intervals are read by now: its lines are drawn again on a change."""
    return view.interval_choice().method.name


#: Repaints per second at most; a repaint happens only when Progress moved.
REFRESH_HZ = 10


class RunScreen(Screen[None]):
    """Watches one evaluation, or a baseline and its candidate run together (``--baseline``):
    reads their Progress on a timer, never per event. A pair shows a grid per version, A
    (the baseline) above B; ``view`` is the candidate's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "c",
            "cancel_run",
            "Cancel run",
            tooltip="Start nothing new, withdraw the Runs in flight",
        ),
        Binding("r", "results", "Results", tooltip="The results table, live"),
        Binding("slash", "search", "Search", tooltip="Show only the cases whose name contains…"),
        Binding(
            "escape", "back", "Back", show=False, tooltip="To Configure (while running: cancel?)"
        ),
    ]

    def __init__(self, view: EvaluationView, baseline: EvaluationView | None = None) -> None:
        super().__init__()
        self.view = view
        self.baseline = baseline
        self._grid_list: list[AttemptsGrid] | None = None
        self._took: float | None = None
        #: What the summary last showed: (progress version, status, half-seconds elapsed).
        self._shown: tuple[int, str, int] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self._settings_line(), id="run-settings")
        if self.baseline is None:
            yield LiveLine(id="run-summary")
        yield LiveLine(id="run-status")
        yield SearchBar()
        for side, view in self.sides():
            if side:
                yield LiveLine(id=f"run-summary-{side.lower()}")
            level = view.read().level
            grid = AttemptsGrid(
                view.progress,
                interval=partial(_pass_at_k_interval, view),
                interval_header=f"pass@{view.progress.k} {level_text(level)}",
                interval_kind=partial(_interval_kind, view),
                sampled=view.still_sampled,
                live=partial(_is_live, view),
                id=f"attempts-grid-{side.lower()}" if side else "attempts-grid",
            )
            yield grid.set_class(bool(side), "-paired")
        yield Static(self._legend(), id="run-legend")
        if self.view.settings.executor == "ray":
            yield LiveLine(id="run-nodes")
        yield KeyBar()

    def sides(self) -> list[tuple[str, EvaluationView]]:
        """``("", view)`` alone; a pair's baseline as A, then its candidate as B."""
        if self.baseline is None:
            return [("", self.view)]
        return [("A", self.baseline), ("B", self.view)]

    def _grids(self) -> list[AttemptsGrid]:
        """The grids, A's first (looked up once: the timer asks ten times a second)."""
        if self._grid_list is None:
            self._grid_list = list(self.query(AttemptsGrid))
        return self._grid_list

    def _view_of(self, grid: AttemptsGrid | None) -> EvaluationView:
        """The evaluation a grid shows (the candidate's when none is focused)."""
        for (_, view), shown in zip(self.sides(), self._grids(), strict=True):
            if shown is grid:
                return view
        return self.view

    def on_mount(self) -> None:
        self.sub_title = self.view.title()
        if self.baseline is not None:
            self.sub_title += f" · baseline v{self.baseline.settings.version}"
        self._grids()[-1].focus()
        self.set_interval(1 / REFRESH_HZ, self.refresh_from_progress)
        self.refresh_from_progress()
        follow_theme(self, self._restyle)

    def _restyle(self) -> None:
        """A new theme: the legend and the live lines again, in its colours (now, or when
        this screen is back on top)."""
        self.query_one("#run-legend", Static).update(self._legend())
        self._shown = None
        self.refresh_from_progress()

    def on_screen_resume(self) -> None:
        self.refresh_from_progress()

    def _settings_line(self) -> Text:
        """The settings, the stack's address as typed (shown as text: never read as markup)."""
        s = self.view.settings
        parts = [
            f"{counted(len(self.view.progress.case_names), 'case')} × {s.attempts} attempts"
            + ("" if s.max_attempts is None else f", adaptive to {s.max_attempts}"),
            f"k={s.k}",
            f"concurrency {s.concurrency}",
            f"timeout {s.timeout:g} s",
            f"gate {gate_text(s.require)}" if s.require is not None else "no gate",
            *budget_and_price(s),
            s.stack or "local agent",
            self.view.read().watched_line,
        ]
        if self.baseline is not None:
            parts.insert(0, f"v{self.baseline.settings.version} (A) and v{s.version} (B) in turn")
        return Text(terminal_safe(" · ".join(parts)))

    def _legend(self) -> Text:
        colours = palette(self.app)
        parts: list[tuple[str, str]] = []
        for cell in Cell:
            parts += [
                (SYMBOLS[cell], colours.get(THEME_COLOUR[cell], "")),
                (f" {NAMES[cell]}  ", ""),
            ]
        parts += [
            (SAMPLED_MARK, colours.get(THEME_COLOUR[Cell.RUNNING], "")),
            (" sampling", ""),
        ]
        legend = parts_line(*parts)
        return legend

    def refresh_from_progress(self) -> None:
        """The timer's tick: repaint the grid and the summary when something moved."""
        if not self.is_current:
            return
        view = self.view
        for grid in self._grids():
            grid.refresh_from_progress()
        status = view.status
        if status != "running" and self._took is None:
            self._took = view.progress.elapsed()
        elapsed = self._took if self._took is not None else view.progress.elapsed()
        show_timing = self.view.show_timing
        moved = sum(v.progress.version for _, v in self.sides())
        key = (moved, status, int(elapsed * 2) if show_timing else 0)
        if key == self._shown:
            return
        self._shown = key
        colours = palette(self.app)
        for side, shown in self.sides():
            if not side:
                self.query_one("#run-summary", LiveLine).show(
                    summary_text(shown.extent(), shown.progress, colours)
                )
                continue
            line = Text(f"{side} v{shown.settings.version} ", style="bold")
            line.append_text(summary_text(shown.extent(), shown.progress, colours))
            self.query_one(f"#run-summary-{side.lower()}", LiveLine).show(line)
        self.query_one("#run-status", LiveLine).show(self._status_text(status, elapsed))
        if self.view.settings.executor == "ray":
            self.query_one("#run-nodes", LiveLine).show(nodes_text(view.progress.nodes()))

    def _pace(self, status: str, elapsed: float) -> str:
        """The pace line; a pair's counts the Runs in flight of both."""
        view = self.view
        pace = pace_text(
            view.extent(), view.progress, status, elapsed, show_timing=view.show_timing
        )
        if self.baseline is None:
            return pace
        if status != "running":
            return f"took {clock(elapsed)}" if self.view.show_timing else "took -"
        in_flight = sum(v.progress.in_flight for _, v in self.sides())
        return f"{in_flight} Runs in flight, A's and B's attempts in turn"

    def _status_text(self, status: str, elapsed: float) -> Text:
        colours = palette(self.app)
        pace = self._pace(status, elapsed)
        if status == "running":
            took = f" for {clock(elapsed)}" if self.view.show_timing else ""
            return Text(f"Running{took}  ·  {pace}", style=colours.get("muted-text", ""))
        if status == "done":
            return Text(f"Done  ·  {pace}", style=colours.get("outcome-passed", ""))
        if status == "cancelled":
            return Text(
                f"Cancelled, the results so far are kept  ·  {pace}",
                style=colours.get("outcome-wrong", ""),
            )
        return Text(
            f"Could not run: {terminal_safe(self.view.error or 'the evaluation failed')}",
            style=f"bold {colours.get('outcome-errored', '')}",
        )

    @on(AttemptsGrid.CaseChosen)
    def _open_case(self, event: AttemptsGrid.CaseChosen) -> None:
        """The case in the grid it was chosen in (focused by the key or the click)."""
        grid = self.focused if isinstance(self.focused, AttemptsGrid) else None
        self.post_message(CaseOpened(self._view_of(grid), event.case_index))

    def action_results(self) -> None:
        grid = self.focused if isinstance(self.focused, AttemptsGrid) else None
        self.post_message(ResultsOpened(self._view_of(grid)))

    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    @on(SearchBar.Searched)
    def _searched(self, event: SearchBar.Searched) -> None:
        for grid in self._grids():
            grid.show_only(matching(self.view.progress.case_names, event.query))

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self._grids()[-1].focus()

    def action_cancel_run(self) -> None:
        if not self.view.running:
            self.notify("The evaluation is not running.", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.post_message(CancelRequested())

        self.app.push_screen(
            ConfirmScreen(
                "Cancel the evaluation?\n\nNo new attempts start; the Runs in flight are "
                "cancelled and withdrawn: they count in no figure, and a resume runs them "
                "again. The results so far are kept.",
                yes="Cancel the run",
                no="Keep running",
                about_run=True,
            ),
            answered,
        )

    def action_back(self) -> None:
        """Back to configure once the run is over; while it runs, Escape offers to cancel."""
        if self.view.running:
            self.action_cancel_run()
        else:
            self.post_message(ConfigureRequested())


def nodes_text(counts: Mapping[str, int]) -> Text:
    """The footer of a run on a Ray cluster: each node the attempts ran on (its id's first
    characters, as the Case screen shows it) and how many attempts it ran."""
    if not counts:
        return Text("Ray nodes: none has finished an attempt yet")
    ran = " · ".join(f"{terminal_safe(node[:NODE_CHARS])} {n}" for node, n in counts.items())
    return Text(f"Ray nodes ({len(counts)}), attempts each: {ran}")
