"""Errored attempts across every case, grouped by their error: which failure, how often, where."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Header, Static

from passk_tui.core.error_groups import ErrorGroup, error_groups
from passk_tui.tui.screens.view_screen import ViewScreen

#: Fewest characters of a group's error in its table row (the whole error is below).
ROW_ERROR = 24
#: Columns the table spends on cell padding and the count.
TABLE_CHROME = 12


def cases_text(group: ErrorGroup, limit: int = 4) -> str:
    """``weather-tool x4, summary x2`` (then ``+N cases``)."""
    counts = list(group.cases().items())
    shown = ", ".join(f"{case} x{count}" for case, count in counts[:limit])
    return shown + (f" +{len(counts) - limit} cases" if len(counts) > limit else "")


class ErrorsScreen(ViewScreen):
    """ "6x ConnectionResetError", "4x timed_out": every errored attempt, alike ones together."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("c", "copy_error", "Copy error")]

    groups: list[ErrorGroup]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="errors-summary", classes="view-line")
        yield DataTable(id="errors-table", cursor_type="row", classes="view-table")
        with VerticalScroll(classes="view-detail"):
            yield Static(id="errors-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.groups = []
        table = self.query_one(DataTable)
        table.add_columns("count", "cases", "error")
        super().on_mount()
        table.focus()

    def refresh_view(self) -> None:
        self.groups = error_groups(self.all_records())
        errored = sum(g.count for g in self.groups)
        cases = len({case for g in self.groups for case, _ in g.attempts})
        summary = Text()
        if errored:
            summary.append(f"{errored} errored attempts", style=self.role("errored"))
            summary.append(
                f" in {cases} case{'s' if cases != 1 else ''}, {len(self.groups)} kind"
                f"{'s' if len(self.groups) != 1 else ''} of error"
            )
        else:
            summary.append("No attempt errored.", style=self.role("passed"))
        summary.append(self.live_note(), style="dim")
        self.query_one("#errors-summary", Static).update(summary)
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        cases = [cases_text(group) for group in self.groups]
        room = max(ROW_ERROR, self.app.size.width - TABLE_CHROME - max(map(len, cases), default=0))
        for group, where in zip(self.groups, cases, strict=True):
            label = group.label if len(group.label) <= room else group.label[: room - 1] + "…"
            table.add_row(
                Text(f"{group.count}x", justify="right", style=self.role("errored")),
                where,
                label,
            )
        if table.row_count:
            table.move_cursor(row=min(max(cursor, 0), table.row_count - 1))
        self._show_detail(table.cursor_row)

    def on_resize(self) -> None:
        self.refresh_view()

    @on(DataTable.RowHighlighted, "#errors-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        detail = self.query_one("#errors-detail", Static)
        if not 0 <= row < len(self.groups):
            detail.update("")
            return
        group = self.groups[row]
        text = Text()
        text.append("kind ", style="bold")
        text.append(f"{group.label}\n")
        text.append("Turn status ", style="bold")
        text.append(f"{group.status}\n")
        text.append(f"error as recorded (1 of {group.count})\n", style="bold")
        text.append(f"{group.example or 'none recorded'}\n")
        text.append("attempts\n", style="bold")
        for case, count in group.cases().items():
            attempts = " ".join(f"#{a}" for c, a in group.attempts if c == case)
            text.append(f"{case} ({count}): {attempts}\n")
        detail.update(text)

    def action_copy_error(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.groups):
            self.app.copy_to_clipboard(self.groups[row].example or self.groups[row].label)
            self.notify("Error copied.")
