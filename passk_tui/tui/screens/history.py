"""The history screen: earlier evaluations from the store; open one in Results, resume one."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from passk_tui.core.errors import InputError, RunError
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.glyphs import palette

if TYPE_CHECKING:
    from passk_tui.store import EvaluationSummary
    from passk_tui.tui.app import PasskApp

#: Statuses a resume can continue.
RESUMABLE = ("interrupted", "cancelled", "failed")


class HistoryScreen(Screen[None]):
    """Every stored evaluation, newest first (as `passk-tui history` prints them)."""

    app: PasskApp

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("enter", "open", "Open results", show=False),
        Binding("u", "resume", "Resume"),
        Binding("f5", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._summaries: list[EvaluationSummary] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="history-note")
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "history"
        self.action_reload()
        self.query_one(DataTable).focus()

    def action_reload(self) -> None:
        from passk_tui.store import Store
        from passk_tui.store.history import history_rows

        note = self.query_one("#history-note", Static)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        try:
            with Store.open() as store:
                self._summaries = store.list_evaluations()
        except (InputError, RunError) as exc:
            note.update(Text(str(exc), style=palette(self.app).get("error", "")))
            return
        rows = history_rows(self._summaries)
        for index, label in enumerate(rows[0]):
            table.add_column(label, key=f"column-{index}")
        colours = palette(self.app)
        status_colour = {
            "done": colours.get("success", ""),
            "interrupted": colours.get("warning", ""),
            "cancelled": colours.get("warning", ""),
            "failed": colours.get("error", ""),
        }
        for row in rows[1:]:
            cells = list(row)
            status = Text(cells[6], style=status_colour.get(cells[6], ""))
            gate = Text(cells[7], style=colours.get("error", "") if cells[7] not in "-0" else "")
            table.add_row(*cells[:6], status, gate)
        if self._summaries:
            note.update(
                Text(
                    "Enter opens an evaluation's results; u resumes an interrupted, "
                    "cancelled or failed one.",
                    style="dim",
                )
            )
        else:
            note.update(Text("No evaluations in the store yet.", style="dim"))

    def _chosen(self) -> EvaluationSummary | None:
        row = self.query_one(DataTable).cursor_row
        return self._summaries[row] if 0 <= row < len(self._summaries) else None

    @on(DataTable.RowSelected, "#history-table")
    def _selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        """Show the chosen evaluation's results as stored."""
        from passk_tui.store import Store
        from passk_tui.tui.screens.results import ResultsScreen

        chosen = self._chosen()
        if chosen is None:
            return
        try:
            with Store.open() as store:
                stored = store.load(chosen.id)
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot open", severity="error")
            return
        view = EvaluationView(
            stored.id,
            stored.settings,
            stored.progress(),
            stored.cases,
            stored_status=chosen.status,
            stored_error=stored.error,
        )
        self.app.push_screen(ResultsScreen(view))

    def action_resume(self) -> None:
        chosen = self._chosen()
        if chosen is None:
            return
        if chosen.status not in RESUMABLE:
            self.notify(f"{chosen.id} is {chosen.status}: nothing to resume.", severity="warning")
            return
        self.app.resume(chosen.id)
