"""One case in two versions: both versions' attempts side by side, and a baseline answer diffed
against a candidate answer (by default what the change broke or fixed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Header, Static

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.reading.vocabulary import CaseComparison
from passk_tui.core.render.answer_diff import default_cross_pair
from passk_tui.core.render.compare_text import p_text, passed_cell, signed
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.screens.view_screen import OUTCOME_LABEL, ViewScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.diff_text import diff_text, shown_diff
from passk_tui.tui.widgets.glyphs import palette
from passk_tui.tui.widgets.key_bar import KeyBar
from passk_tui.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from passk_tui.store.comparison import ComparedEvaluations
    from passk_tui.store.models import StoredEvaluation


def case_records(stored: StoredEvaluation, name: str) -> list[AttemptRecord]:
    return sorted((r for r in stored.records if r.case == name), key=lambda r: r.attempt)


class CompareCaseScreen(ViewScreen):
    """A's attempts beside B's; the cursor in each list picks the answer diffed from that side."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "tab",
            "app.focus_next",
            "Other version",
            show=False,
            tooltip="Move to the other version's attempts",
        ),
    ]

    def __init__(self, compared: ComparedEvaluations, case: CaseComparison) -> None:
        super().__init__(EvaluationView.from_store(compared.candidate))
        self.compared = compared
        self.case = case
        self.a_records = case_records(compared.baseline, case.name)
        self.b_records = case_records(compared.candidate, case.name)
        pair = default_cross_pair(self.a_records, self.b_records)
        #: The baseline's and the candidate's attempt being diffed.
        self.pair: tuple[AttemptRecord, AttemptRecord] | None = pair

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="compare-case-title", classes="view-line")
        with Horizontal(id="compare-case-sides"):
            yield RowTable(id="compare-case-a")
            yield RowTable(id="compare-case-b")
        yield Static(id="compare-diff-title", classes="view-line")
        with VerticalScroll(id="compare-diff-body"):
            yield Static(id="compare-diff-lines")
        yield KeyBar()

    def on_mount(self) -> None:
        for table_id, records, side in (
            ("#compare-case-a", self.a_records, "A"),
            ("#compare-case-b", self.b_records, "B"),
        ):
            table = self.query_one(table_id, DataTable)
            table.add_columns(f"{side} attempt", "outcome")
            for record in records:
                table.add_row(str(record.attempt), OUTCOME_LABEL[record.outcome])
            chosen = self.pair[0 if side == "A" else 1] if self.pair else None
            if chosen is not None:
                table.move_cursor(row=records.index(chosen))
        self.query_one("#compare-case-a", DataTable).focus()

    def refresh_view(self) -> None:
        c = self.case
        self.sub_title = f"compare · case {c.name}"
        title = Text(terminal_safe(c.name), style="bold")
        title.append(
            f"   A {passed_cell(c.a)} ({c.a.errored} errored)   B {passed_cell(c.b)} "
            f"({c.b.errored} errored)   change {signed(c.change)}   p {p_text(c.p)}   "
        )
        title.append(str(c.verdict), style=self.role("errored" if c.mostly_errored else "gate"))
        if c.mostly_errored:
            title.append("  (mostly errored: look at the platform first)", style=self.role("muted"))
        self.query_one("#compare-case-title", Static).update(title)
        self._show_diff()

    @on(DataTable.RowHighlighted)
    def _chosen(self, event: DataTable.RowHighlighted) -> None:
        if self.pair is None:
            return
        old, new = self.pair
        if event.data_table.id == "compare-case-a" and event.cursor_row < len(self.a_records):
            old = self.a_records[event.cursor_row]
        elif event.data_table.id == "compare-case-b" and event.cursor_row < len(self.b_records):
            new = self.b_records[event.cursor_row]
        self.pair = (old, new)
        self._show_diff()

    def _show_diff(self) -> None:
        title = self.query_one("#compare-diff-title", Static)
        body = self.query_one("#compare-diff-lines", Static)
        if self.pair is None:
            title.update(Text("No answer on one side: nothing to diff.", style=self.role("muted")))
            body.update("")
            return
        old, new = self.pair
        title.update(
            self.diff_heading(
                f"A attempt {old.attempt}", old.outcome, f"B attempt {new.attempt}", new.outcome
            )
        )
        lines = shown_diff(old, new)
        if all(line.kind == "same" for line in lines):
            body.update(Text("The two answers are the same.", style=self.role("muted")))
        else:
            body.update(diff_text(lines, old.outcome, new.outcome, palette(self.app)))
