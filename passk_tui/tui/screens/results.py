"""The results screen: the plain table's columns plus pass^k, the gate verdict, sort and filter."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import DataTable, Footer, Header, Static

from passk_tui.core.figures import CaseFigures, two_decimals
from passk_tui.core.table import gate_text, table_rows
from passk_tui.tui.screens.view_actions import ResultsViews
from passk_tui.tui.widgets.glyphs import palette

if TYPE_CHECKING:
    from passk_tui.tui.app import PasskApp
    from passk_tui.tui.view import EvaluationView

#: The orders the table can take, and how each is described.
SORTS = {
    "file": "file order",
    "name": "name",
    "pass@k": "pass@k, lowest first",
    "errored": "errored, most first",
}
#: Failing cases named in the gate line; the rest are counted (all are on stderr at exit).
GATE_NAMES_SHOWN = 8
#: Clicking these column headers (by position) sorts by them.
HEADER_SORTS = {0: "name", 5: "pass@k", 3: "errored"}


def sort_figures(indexed: list[tuple[int, CaseFigures]], by: str) -> list[tuple[int, CaseFigures]]:
    """Cases in the asked order; ties keep file order."""
    if by == "name":
        return sorted(indexed, key=lambda item: item[1].name)
    if by == "pass@k":
        # An undefined pass@k (fewer than k attempts) sorts first, with the worst.
        return sorted(
            indexed, key=lambda item: (item[1].pass_at_k is not None, item[1].pass_at_k or 0)
        )
    if by == "errored":
        return sorted(indexed, key=lambda item: -item[1].errored)
    return list(indexed)


class ResultsScreen(ResultsViews):
    """A row per case (never a mean across cases), wrong and errored coloured apart."""

    app: PasskApp

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("enter", "open_case", "Open case", show=False),
        Binding("n", "sort('name')", "By name", tooltip="Sort the cases by name"),
        Binding("p", "sort('pass@k')", "By pass@k", tooltip="Sort by pass@k, lowest first"),
        Binding("e", "sort('errored')", "By errored", tooltip="Sort by errored, most first"),
        Binding("o", "sort('file')", "File order", tooltip="The cases file's order"),
        Binding(
            "f",
            "toggle_filter",
            "Problems only",
            tooltip="Only the cases with wrong or errored attempts (again: all)",
        ),
    ]

    sort_by: reactive[str] = reactive("file")
    """The row order: a key of SORTS."""
    only_problems: reactive[bool] = reactive(False)
    """Show only the cases with at least one wrong or errored attempt."""

    def __init__(self, view: EvaluationView) -> None:
        super().__init__()
        self.view = view
        self._seen: tuple | None = None
        self._order: list[int] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="results-status")
        yield Static(id="results-gate")
        yield Static(id="results-order")
        yield DataTable(id="results-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.view.title()
        self.rebuild()
        self.query_one(DataTable).focus()
        if self.view.running:
            self.set_interval(1.0, self.rebuild)

    def watch_sort_by(self) -> None:
        self.rebuild(force=True)

    def watch_only_problems(self) -> None:
        self.rebuild(force=True)

    def rebuild(self, force: bool = False) -> None:
        """Fill the table from Progress (again only when it moved, the order or filter changed)."""
        key = (self.view.progress.version, self.view.status, self.sort_by, self.only_problems)
        if key == self._seen and not force:
            return
        self._seen = key
        self._update_header()
        table = self.query_one(DataTable)
        progress = self.view.progress
        figures = progress.all_figures()
        rows = table_rows(figures, progress.k)
        header = (*rows[0][:6], f"pass^{progress.k}", rows[0][6])
        cursor_case = self._order[table.cursor_row] if self._order and table.row_count else None
        table.clear(columns=True)
        for index, label in enumerate(header):
            table.add_column(label, key=f"column-{index}")
        indexed = list(enumerate(figures))
        if self.only_problems:
            indexed = [(i, f) for i, f in indexed if f.wrong or f.errored]
        colours = palette(self.app)
        failing = {f.name for f in self.view.failing()}
        self._order = []
        for index, f in sort_figures(indexed, self.sort_by):
            cells = rows[index + 1]
            name = Text(cells[0], style=colours.get("error", "") if f.name in failing else "")
            wrong = Text(cells[2], style=f"bold {colours.get('warning', '')}" if f.wrong else "dim")
            errored = Text(
                cells[3], style=f"bold {colours.get('error', '')}" if f.errored else "dim"
            )
            all_passed = Text(cells[6], style=colours.get("success", "") if f.all_passed else "")
            hat = two_decimals(f.pass_hat_k)
            table.add_row(name, cells[1], wrong, errored, cells[4], cells[5], hat, all_passed)
            self._order.append(index)
        if cursor_case is not None and cursor_case in self._order:
            table.move_cursor(row=self._order.index(cursor_case))

    def _update_header(self) -> None:
        view = self.view
        colours = palette(self.app)
        progress = view.progress
        status = view.status
        counts = f"{progress.finished}/{progress.total} attempts"
        line = Text()
        if status == "done":
            line.append(f"Done: {counts}", style=colours.get("success", ""))
        elif status == "running":
            line.append(f"Running: {counts} so far (live)", style="dim")
        elif status == "cancelled":
            line.append(f"Cancelled: {counts} finished", style=colours.get("warning", ""))
        else:
            line.append(f"Could not run: {view.error or status}", style=colours.get("error", ""))
            line.append(f" ({counts} finished)")
        self.query_one("#results-status", Static).update(line)

        gate = Text()
        require = view.settings.require
        k = progress.k
        if require is None:
            gate.append("No gate: pass --require X (or set it in Configure) to gate on pass@k.")
        else:
            failing = view.failing()
            shown = gate_text(require)
            if failing:
                gate.append(
                    f"Gate failed: pass@{k} below {shown} for ", style=colours.get("error", "")
                )
                names = ", ".join(
                    f"{f.name} ({two_decimals(f.pass_at_k)})" for f in failing[:GATE_NAMES_SHOWN]
                )
                gate.append(names, style=f"bold {colours.get('error', '')}")
                if len(failing) > GATE_NAMES_SHOWN:
                    more = len(failing) - GATE_NAMES_SHOWN
                    gate.append(f" and {more} more (p sorts them first)")
            else:
                gate.append(
                    f"Gate held: every case's pass@{k} is at least {shown}",
                    style=colours.get("success", ""),
                )
        self.query_one("#results-gate", Static).update(gate)
        order = f"Sorted by {SORTS[self.sort_by]}"
        if self.only_problems:
            order += " · only cases with wrong or errored attempts (f shows all)"
        self.query_one("#results-order", Static).update(Text(order, style="dim"))

    def action_sort(self, by: str) -> None:
        self.sort_by = by

    def action_toggle_filter(self) -> None:
        self.only_problems = not self.only_problems

    @on(DataTable.HeaderSelected, "#results-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        by = HEADER_SORTS.get(event.column_index)
        if by is not None:
            self.sort_by = "file" if self.sort_by == by else by

    @on(DataTable.RowSelected, "#results-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self._open(event.cursor_row)

    def action_open_case(self) -> None:
        self._open(self.query_one(DataTable).cursor_row)

    def _open(self, row: int) -> None:
        if not 0 <= row < len(self._order):
            return
        self.app.show_case(self.view, self._order[row])
