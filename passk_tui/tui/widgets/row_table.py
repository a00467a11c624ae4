"""The tables of the app (results, attempts, history): a DataTable whose Home and End mean rows."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.binding import Binding, BindingType
from textual.widgets import DataTable


class RowTable(DataTable[RenderableType]):
    """Home and End go to the first and last row, as on the Run grid (not sideways)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First", show=False),
        Binding("end", "last_row", "Last", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)


class CasesTable(RowTable):
    """A row per case; Enter opens it (said in the footer and the palette)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open case", tooltip="The case in both versions")
    ]


class EvaluationsTable(RowTable):
    """A row per stored evaluation; Enter opens its results."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open results", tooltip="The chosen evaluation's results")
    ]


class AttemptsTable(RowTable):
    """A row per attempt of a case; Enter moves to its answer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Answer", tooltip="Move to the attempt's answer")
    ]
