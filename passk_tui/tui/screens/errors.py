"""Errored attempts across every case, grouped by their error: which failure, how often, where."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Header, Static

from passk_tui.core.render.error_groups import ErrorGroup, error_groups
from passk_tui.core.text.amounts import counted, retries_text
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines
from passk_tui.tui.app.messages import AttemptsOpened
from passk_tui.tui.screens.view_screen import ViewScreen
from passk_tui.tui.widgets.key_bar import KeyBar

#: Fewest characters of a group's error in its table row (the whole error is below).
ROW_ERROR = 32
#: Columns the table spends on cell padding and the count.
TABLE_CHROME = 12
COLUMNS = ("count", "cases", "error")
#: Shown only when some errored attempt was retried: the group's retries in all.
WITH_RETRIES = ("count", "retries", "cases", "error")


def _fitted(group: ErrorGroup, width: int) -> str:
    """The group's cases as they fit ``width``: all, else the first and how many more."""
    text = group.cases_text()
    if len(text) <= width:
        return text
    short = group.cases_text(limit=1)
    return short if len(short) <= width else short[: max(1, width - 1)] + "…"


class ErrorsScreen(ViewScreen):
    """ "6x ConnectionResetError", "4x timed_out": every errored attempt, alike ones together."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_error", "Copy error", tooltip="The chosen error as recorded")
    ]

    groups: list[ErrorGroup]
    #: The table's columns as last laid out (the retries column comes and goes).
    _columns: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="errors-summary", classes="view-line")
        yield DataTable(id="errors-table", cursor_type="row", classes="view-table")
        with VerticalScroll(classes="view-detail"):
            yield Static(id="errors-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        self.groups = []
        super().on_mount()
        self.query_one(DataTable).focus()

    def refresh_view(self) -> None:
        self.groups = error_groups(self.all_records())
        errored = sum(g.count for g in self.groups)
        cases = len({case for g in self.groups for case, _ in g.attempts})
        retries = sum(g.total_retries for g in self.groups)
        summary = Text()
        if errored:
            summary.append(f"{errored} errored attempts", style=self.role("errored"))
            summary.append(
                f" in {counted(cases, 'case')}, {counted(len(self.groups), 'kind')} of error"
            )
            if retries:
                summary.append(f", {retries_text(retries)} before they ended")
        else:
            summary.append("No attempt errored.", style=self.role("passed"))
        summary.append(self.live_note(), style="dim")
        self.query_one("#errors-summary", Static).update(summary)
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        columns = WITH_RETRIES if retries else COLUMNS
        if columns != self._columns:
            table.clear(columns=True)
            table.add_columns(*columns)
            self._columns = columns
        table.clear()
        width = self.app.size.width
        # The error is what the row is for: the cases get a third of the width at most
        # (all of them are in the detail below), the error the rest.
        places = [_fitted(group, width // 3) for group in self.groups]
        chrome = TABLE_CHROME + (len("retries") + 2) * bool(retries)
        room = max(ROW_ERROR, width - chrome - max(map(len, places), default=0))
        for group, where in zip(self.groups, places, strict=True):
            label = terminal_safe(group.label)
            label = label if len(label) <= room else label[: room - 1] + "…"
            count = Text(f"{group.count}x", justify="right", style=self.role("errored"))
            tried = (Text(str(group.total_retries), justify="right"),) * bool(retries)
            table.add_row(count, *tried, Text(where), Text(label))  # a str: read as markup
        if table.row_count:
            table.move_cursor(row=min(max(cursor, 0), table.row_count - 1))
        self._show_detail(table.cursor_row)

    def on_resize(self) -> None:
        self.refresh_view()

    @on(DataTable.RowSelected, "#errors-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        """Enter: the group's attempts in its first case, each beside its detail."""
        if not 0 <= event.cursor_row < len(self.groups):
            return
        group = self.groups[event.cursor_row]
        cases = list(group.cases())
        first = cases[0]
        attempts = tuple(a for c, a in group.attempts if c == first)
        about = f"of {terminal_safe(first)} with the error {terminal_safe(group.label)}"
        if len(cases) > 1:
            about += f"; also in {counted(len(cases) - 1, 'other case')}"
        case_index = self.view.progress.case_names.index(first)
        self.post_message(AttemptsOpened(self.view, case_index, attempts, about))

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
        text.append(f"{terminal_safe(group.label)}\n")
        text.append("Turn status ", style="bold")
        text.append(f"{terminal_safe(group.status)}\n")
        text.append(f"error as recorded (1 of {group.count})\n", style="bold")
        text.append(f"{terminal_safe_lines(group.example or 'none recorded')}\n")
        if group.total_retries:
            text.append("retries ", style="bold")
            text.append(f"{group.total_retries} in all, before these attempts ended\n")
        text.append("attempts\n", style="bold")
        retries = dict(zip(group.attempts, group.retries, strict=True))
        for case, count in group.cases().items():
            attempts = " ".join(
                f"#{a}" + (f" ({retries_text(retries[c, a])})" if retries[c, a] else "")
                for c, a in group.attempts
                if c == case
            )
            text.append(f"{terminal_safe(case)} ({count}): {attempts}\n")
        detail.update(text)

    def action_copy_error(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.groups):
            self.app.copy_to_clipboard(self.groups[row].example or self.groups[row].label)
            self.notify("Error copied.")
