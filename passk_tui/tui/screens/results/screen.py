"""The results screen: what happened in counts, the table per case, the gate, sort, filter, search."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import Header, Static

from passk_tui.core.inputs.agent_definition import not_runnable
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.reading.vocabulary import CaseReading
from passk_tui.core.render.cost_text import cost_summary
from passk_tui.core.render.extent_text import attempts_text, standing_text
from passk_tui.core.render.table import table_rows
from passk_tui.core.run.budget import BUDGET_SPENT, budget_line
from passk_tui.core.run.policy import worth_more
from passk_tui.core.text.amounts import clock, counted
from passk_tui.core.text.figure_text import gate_text, level_text, promise_words, two_decimals
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.app.messages import CaseOpened, ExtendRequested, ResumeRequested
from passk_tui.tui.screens.results.results_order import COLUMN_BY_KEY, Order, sort_figures
from passk_tui.tui.screens.results.results_table import Column, headings, layout, row_cells
from passk_tui.tui.screens.view_actions import ResultsViews
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.glyphs import follow_theme, palette
from passk_tui.tui.widgets.key_bar import KeyBar
from passk_tui.tui.widgets.line_table import LineTable, TableColumn
from passk_tui.tui.widgets.line_text import parts_line
from passk_tui.tui.widgets.search_bar import SearchBar

#: Failing cases named in the gate line; the rest are counted (all are on stderr at exit).
GATE_NAMES_SHOWN = 4
#: Statuses a resume can continue.
RESUMABLE = ("interrupted", "cancelled", "failed")


def _named(cases: list[CaseReading], settle: EvaluationReading | None = None) -> str:
    """The first few cases with their pass@k, the rest counted; with ``settle`` (an undecided
    gate's reading), each named case with the attempts that would settle it."""

    def more(c: CaseReading) -> str:
        if settle is None or settle.reading.require is None:
            return ""
        found = settle.to_settle(c)
        return ", too close to settle" if found is None else f", ~{found:,} more"

    named = ", ".join(
        f"{terminal_safe(c.figures.name)} ({two_decimals(c.figures.pass_at_k)}{more(c)})"
        for c in cases[:GATE_NAMES_SHOWN]
    )
    if len(cases) > GATE_NAMES_SHOWN:
        named += f" and {len(cases) - GATE_NAMES_SHOWN} more (p sorts them first)"
    return named


def _sort_binding(column: str, description: str, tooltip: str, show: bool = False) -> Binding:
    return Binding(column, f"sort('{column}')", description, show=show, tooltip=tooltip)


class ResultsScreen(ResultsViews):
    """A row per case (never a mean across cases), wrong and errored coloured apart."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", show=False, tooltip="The screen before"),
        _sort_binding("p", "Sort pass@k", "Sort by pass@k, lowest first (again: reversed)", True),
        _sort_binding("e", "Sort errored", "Sort by errored, most first (again: reversed)"),
        _sort_binding("n", "Sort name", "Sort by name (again: reversed)"),
        _sort_binding("a", "Sort passed", "Sort by passed, fewest first (again: reversed)"),
        _sort_binding("w", "Sort wrong", "Sort by wrong, most first (again: reversed)"),
        _sort_binding("1", "Sort pass@1", "Sort by pass@1, lowest first (again: reversed)"),
        _sort_binding("h", "Sort pass^k", "Sort by pass^k, lowest first (again: reversed)"),
        _sort_binding("y", "Sort all passed", "Sort by all passed, no first (again: reversed)"),
        Binding("o", "sort_file", "File order", show=False, tooltip="The cases file's order"),
        Binding(
            "f",
            "toggle_filter",
            "Problems only",
            tooltip="Only the cases with wrong or errored attempts (again: all)",
        ),
        Binding("slash", "search", "Search", tooltip="Show only the cases whose name contains…"),
        Binding("u", "resume", "Resume", tooltip="Run the attempts this evaluation is missing"),
        Binding(
            "m",
            "more_attempts",
            "More attempts",
            show=False,  # the gate line offers it where it would help: the footer stays whole
            tooltip="Extend the undecided or flaky cases: attempts per case up to N",
        ),
    ]

    order: reactive[Order] = reactive(Order, init=False)
    """The row order: file order, or a column and its direction."""
    only_problems: reactive[bool] = reactive(False, init=False)
    """Show only the cases with at least one wrong or errored attempt."""
    search_text: reactive[str] = reactive("", init=False)
    """Show only the cases whose name contains this (the `/` search)."""

    def __init__(self, view: EvaluationView) -> None:
        super().__init__()
        self.view = view
        #: What the table was last filled from: (progress version, status, order, filter,
        #: search, width).
        self._seen: tuple[int, str, Order, bool, str, int] | None = None
        self._order: list[int] = []
        self._columns: list[Column] = []
        self._header: dict[str, Text] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="results-agent")
        yield Static(id="results-status")
        yield Static(id="results-cases")
        yield Static(id="results-cost")
        yield Static(id="results-judge")
        yield Static(id="results-gate")
        yield Static(id="results-order")
        yield SearchBar()
        yield LineTable(id="results-table")
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = self.view.title()
        # As text, escapes made visible; one line (app.tcss): a long command ends in "…".
        self.query_one("#results-agent", Static).update(Text(terminal_safe(self.view.ran())))
        table = self.query_one(LineTable)
        self.rebuild()
        table.focus()
        follow_theme(self, self._restyle)
        if self.view.live:
            self.set_interval(1.0, self.rebuild)

    def watch_order(self) -> None:
        self.rebuild(force=True)

    def watch_only_problems(self) -> None:
        self.rebuild(force=True)

    def watch_search_text(self) -> None:
        self.rebuild(force=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Resume only where there is something to resume and nothing runs here; neither it nor
        More attempts where only Python can run the agent (shown dimmed: help says why)."""
        if action == "resume" and not self._resumable():
            return False
        return None if self.unavailable(action) else True

    def _resumable(self) -> bool:
        return self.view.status in RESUMABLE and not self.view.live

    def unavailable(self, action: str) -> str | None:
        """Why Resume (where there is something to resume) and More attempts cannot run here:
        the agent is a Python callable, or it was imported."""
        if action != "more_attempts" and not (action == "resume" and self._resumable()):
            return None
        why = not_runnable(self.view.evaluation_id, self.view.definition)
        return None if why is None else terminal_safe(why)

    def _restyle(self) -> None:
        """A new theme: every line again, in its colours (the rows' cache is keyed by theme)."""
        self._header.clear()
        self.rebuild(force=True)

    def rebuild(self, force: bool = False) -> None:
        """Fill the table from Progress (again only when it moved, the order, filter or width
        changed)."""
        view = self.view
        key = (
            view.progress.version,
            view.status,
            self.order,
            self.only_problems,
            self.search_text,
            self.size.width,
        )
        if key == self._seen and not force:
            return
        self._seen = key
        self._update_header()
        table = self.query_one(LineTable)
        progress = view.progress
        figures = progress.all_figures()
        rows = table_rows(figures, progress.k)
        cursor_case = self._order[table.cursor_row] if self._order and table.row_count else None
        reading = view.reading()
        self._columns = layout(rows, reading, self.order, self.size.width - 3)
        indexed = list(enumerate(figures))
        if self.only_problems:
            indexed = [(i, f) for i, f in indexed if f.wrong or f.errored]
        if self.search_text:
            needle = self.search_text.strip().casefold()
            indexed = [(i, f) for i, f in indexed if needle in f.name.casefold()]
        failing = {f.name for f in view.failing()}
        colours = palette(self.app)
        self._order = [index for index, _ in sort_figures(indexed, self.order)]
        columns, order = self._columns, self._order

        def cells(position: int) -> list[Text]:
            index = order[position]
            return row_cells(
                rows[index + 1],
                reading.cases[index],
                columns,
                reading,
                figures[index].name in failing,
                colours,
            )

        headed = [
            TableColumn(column.key, heading, column.width + 1)
            for column, heading in zip(columns, headings(columns), strict=True)
        ]
        version, theme = progress.version, self.app.theme
        table.set_rows(
            headed, len(order), cells, lambda position: (order[position], version, theme)
        )
        if cursor_case is not None and cursor_case in order:
            table.move_cursor(row=order.index(cursor_case))
        self.refresh_bindings()

    def on_resize(self) -> None:
        """The bar takes the width there is: lay the table out again (the first layout, at the
        width the screen was mounted at, changes nothing: not filled twice)."""
        if self.is_mounted:
            self.rebuild()

    def _update_header(self) -> None:
        view = self.view
        colours = palette(self.app)
        progress = view.progress
        totals = view.read().totals
        status = view.status
        extent = view.extent()
        counts = attempts_text(extent)
        span = view.read().running_seconds
        took = f" in {clock(span)}" if span is not None and view.show_timing else ""
        line = Text()
        if status == "done":
            line.append("Done", style=f"bold {colours.get('outcome-passed', '')}")
            line.append(f": {counts}{took}")
            if view.status_reason:
                line.append(f", {view.status_reason}", style=f"bold {colours.get('gate-fail', '')}")
        elif view.live:
            line.append("Running (live)", style="bold")
            line.append(f": {counts} so far{took}")
        elif status == "running":
            line.append("Running elsewhere", style="bold")
            line.append(f": a snapshot of {counts}, taken when opened")
        elif status in ("cancelled", "interrupted"):
            line.append(status.capitalize(), style=f"bold {colours.get('outcome-wrong', '')}")
            line.append(f", {counts} finished{took}")
            line.append(": u resumes it")
        else:
            line.append("Could not run", style=f"bold {colours.get('outcome-errored', '')}")
            line.append(
                f": {terminal_safe(view.error or status)} ({counts} finished; u resumes it)"
            )
        line.append("   ")
        line.append(f"✓ {totals.passed} passed", style=colours.get("outcome-passed", ""))
        line.append("  ")
        line.append(f"✗ {totals.wrong} wrong", style=colours.get("outcome-wrong", ""))
        line.append("  ")
        line.append(f"! {totals.errored} errored", style=colours.get("outcome-errored", ""))
        self._show("#results-status", line)

        cases = Text(f"{totals.cases_all_passed} of {counted(totals.cases, 'case')} all passed")
        if totals.cases_unfinished:
            cases.append(f"; {totals.cases_unfinished} not finished (their figures: -)")
        if extent.adaptive:
            cases.append(f"  ·  {standing_text(extent)}")
        reading = view.reading()
        cases.append("  ·  ")
        cases.append(
            f"intervals: {level_text(reading.level)} {reading.method.label}, "
            f"{view.interval_choice().why}",
            style=colours.get("muted-text", ""),
        )
        self._show("#results-cases", cases)
        self._show_cost()

        gate = self._gate_text(totals.cases_under_gate, totals.cases)
        wanted = len(worth_more(view.reading()))
        if (
            wanted
            and not view.running
            and not (view.reading().confident and view.reading().undecided)
        ):
            gate.append("  ·  ")
            offer = f"more attempts for {counted(wanted, 'unsettled case')}"
            python = self.unavailable("more_attempts")
            gate.append(
                f"m: {offer}" if python is None else f"{offer}: {python}",
                style=colours.get("muted-text", ""),
            )
        self._show("#results-gate", gate)

        muted = colours.get("muted-text", "")
        parts = [(f"Sorted by {self.order.describe(progress.k)}", muted)]
        for is_on, what in (
            (self.only_problems, "FILTER: only cases with wrong or errored attempts (f: all)"),
            (
                bool(self.search_text),
                f"SEARCH: names containing {self.search_text!r} (/ then Escape: all)",
            ),
        ):
            if is_on:
                parts += [("  ·  ", muted), (what, f"bold {colours.get('gate-fail', '')}")]
        order = parts_line(*parts)
        self._show("#results-order", order)

    def _show_cost(self) -> None:
        """The cost line: what it cost and its tokens, and which cases a spent budget cut short;
        hidden when nothing reported usage and no price or budget was set."""
        view = self.view
        parts = [cost_summary(view.costs(), view.settings)]
        if view.status_reason == BUDGET_SPENT:
            parts.append(budget_line(view.progress, view.settings))
        judge = " · ".join(view.judge_lines())
        self.query_one("#results-judge", Static).display = bool(judge)
        self._show("#results-judge", Text(terminal_safe(judge)))
        shown = " · ".join(part for part in parts if part)
        widget = self.query_one("#results-cost", Static)
        widget.display = bool(shown)
        self._show(
            "#results-cost", Text(terminal_safe(shown) + ("  (d: per case)" if shown else ""))
        )

    def _show(self, selector: str, text: Text) -> None:
        """Update a header line only when it changed: each update lays the screen out again
        (a sort changes one line of four)."""
        if self._header.get(selector) != text:
            self._header[selector] = text
            self.query_one(selector, Static).update(text)

    def _gate_text(self, under_gate: int | None, cases: int) -> Text:
        """No gate; the point gate held or failed; the confident gate's fails and undecided.

        ``under_gate`` is None without a gate, and read only with one."""
        colours = palette(self.app)
        reading = self.view.reading()
        k = reading.k
        gate = Text()
        if reading.require is None:
            gate.append(
                "No gate (set --require X to gate on pass@k)", style=colours.get("muted-text", "")
            )
            return gate
        shown = gate_text(reading.require)
        failing, undecided = reading.failing, reading.undecided
        promise = ""
        if reading.confident:
            promise = f" ({level_text(reading.promise)} {promise_words(reading.family_wise)})"
        if failing:
            gate.append("Gate failed", style=f"bold {colours.get('gate-fail', '')}")
            gate.append(promise)
            if reading.confident:
                gate.append(
                    f": {len(failing)} of {counted(cases, 'case')} have pass@{k} wholly below {shown}: "
                )
            else:
                gate.append(
                    f": {under_gate} of {counted(cases, 'case')} have pass@{k} below {shown}: "
                )
            gate.append(_named(failing))
        elif undecided and reading.confident:
            gate.append("Gate undecided", style=f"bold {colours.get('gate-undecided', '')}")
            gate.append(promise)
            gate.append(
                f": {len(undecided)} of {counted(cases, 'case')} have a pass@{k} interval that "
                f"includes {shown} (m: more attempts; ~N: to decide half the time): "
            )
            # The attempts to settle a case are worked out once it stops moving.
            gate.append(_named(undecided, None if self.view.running else self.view.read()))
        else:
            gate.append("Gate held", style=f"bold {colours.get('outcome-passed', '')}")
            gate.append(promise)
            if reading.confident:
                gate.append(f": every case's pass@{k} interval is at or above {shown}")
            else:
                gate.append(f": every case's pass@{k} is at least {shown}")
        return gate

    def action_sort(self, column: str) -> None:
        self.order = self.order.pressed(column)

    def action_sort_file(self) -> None:
        self.order = Order()

    def action_toggle_filter(self) -> None:
        self.only_problems = not self.only_problems

    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    @on(SearchBar.Searched)
    def _searched(self, event: SearchBar.Searched) -> None:
        self.search_text = event.query

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self.search_text = self.query_one(SearchBar).value
        self.query_one(LineTable).focus()

    def action_resume(self) -> None:
        self.post_message(ResumeRequested(self.view.evaluation_id))

    def action_more_attempts(self) -> None:
        """Ask how many attempts per case, confirm the Runs that costs, then extend in place."""
        from passk_tui.tui.dialogs.confirm import ConfirmScreen
        from passk_tui.tui.dialogs.more_attempts import MoreAttemptsScreen, extension_question

        view = self.view
        if view.running:
            self.notify("More attempts once the evaluation has ended.", severity="warning")
            return

        def confirmed(attempts: int, yes: bool | None) -> None:
            if yes:
                self.post_message(ExtendRequested(view.evaluation_id, attempts))

        def chosen(attempts: int | None) -> None:
            if attempts is not None:
                self.app.push_screen(
                    ConfirmScreen(extension_question(view, attempts), yes="Run them", no="Cancel"),
                    lambda yes: confirmed(attempts, yes),
                )

        self.app.push_screen(MoreAttemptsScreen(view), chosen)

    @on(LineTable.HeaderSelected, "#results-table")
    def _header_clicked(self, event: LineTable.HeaderSelected) -> None:
        key = event.column_key
        if key in COLUMN_BY_KEY:
            self.order = self.order.pressed(key)

    @on(LineTable.RowSelected, "#results-table")
    def _row_selected(self, event: LineTable.RowSelected) -> None:
        self._open(event.cursor_row)

    def _open(self, row: int) -> None:
        if not 0 <= row < len(self._order):
            return
        self.post_message(CaseOpened(self.view, self._order[row]))
