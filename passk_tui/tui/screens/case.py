"""The case screen: every attempt of one case, live while the run goes on, and one attempt's detail."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Header, Static, TextArea

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.figures import two_decimals
from passk_tui.core.progress import CELL_OF_OUTCOME, Cell
from passk_tui.tui.screens.view_actions import CaseViews
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS, THEME_COLOUR, palette

if TYPE_CHECKING:
    from passk_tui.tui.app import PasskApp
    from passk_tui.tui.view import EvaluationView

COLUMNS = ("attempt", "outcome", "Turn status", "duration", "run id", "turn id")


def _answer_text(output: Any) -> str:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False, indent=2)


class CaseScreen(CaseViews):
    """One case: its figures, input and check, a row per attempt, the chosen attempt's answer."""

    app: PasskApp

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("a", "focus_answer", "Answer"),
        Binding("t", "focus_attempts", "Attempts"),
    ]

    def __init__(self, view: EvaluationView, case_index: int) -> None:
        super().__init__()
        self.view = view
        self.case_index = case_index
        self._seen: tuple | None = None
        self._shown_attempt: int | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="case-figures")
        yield Static(self._case_text(), id="case-spec")
        yield DataTable(id="case-attempts", cursor_type="row", zebra_stripes=True)
        with Vertical(id="attempt-detail"):
            yield Static(id="attempt-verdict")
            yield TextArea(
                "", id="attempt-answer", read_only=True, soft_wrap=True, show_cursor=False
            )
        yield Footer()

    def show_case(self, case_index: int) -> None:
        """Show another case of the same evaluation (the screen is reused: no new widgets)."""
        self.case_index = case_index
        self._seen = None
        self._shown_attempt = None
        self.sub_title = f"case {self.view.progress.case_names[case_index]}"
        self.query_one("#case-spec", Static).update(self._case_text())
        table = self.query_one(DataTable)
        table.clear()
        self.refresh_from_progress()
        table.move_cursor(row=0)
        table.focus()

    def on_mount(self) -> None:
        self.sub_title = f"case {self.view.progress.case_names[self.case_index]}"
        table = self.query_one(DataTable)
        for column in COLUMNS:
            table.add_column(column, key=column)
        self.query_one("#attempt-answer").border_title = "answer"
        self.refresh_from_progress()
        table.focus()
        self.set_interval(0.25, self.refresh_from_progress)

    def _case_text(self) -> Text:
        text = Text()
        cases = self.view.cases
        if not cases:
            return text
        case = cases[self.case_index]
        shown_input = case.input if isinstance(case.input, str) else json.dumps(case.input)
        if len(shown_input) > 300:
            shown_input = shown_input[:299] + "…"
        text.append("input  ", style="bold")
        text.append(shown_input)
        text.append("\ncheck  ", style="bold")
        text.append(json.dumps(case.spec, ensure_ascii=False) if case.spec else "completion only")
        return text

    def _records(self) -> dict[int, AttemptRecord]:
        return {r.attempt: r for r in self.view.progress.records[self.case_index]}

    def refresh_from_progress(self) -> None:
        """Rebuild the rows when this case's cells changed (live) or on first show."""
        progress = self.view.progress
        cells = bytes(progress.cells[self.case_index])
        if cells == self._seen:
            return
        self._seen = cells
        self._update_figures()
        table = self.query_one(DataTable)
        records = self._records()
        colours = palette(self.app)
        cursor = table.cursor_row
        table.clear()
        for attempt, state in enumerate(cells, start=1):
            record = records.get(attempt)
            cell = CELL_OF_OUTCOME[record.outcome] if record else Cell(state)
            outcome = Text(
                f"{SYMBOLS[cell]} {NAMES[cell]}", style=colours.get(THEME_COLOUR[cell], "")
            )
            if record is None:
                row = (str(attempt), outcome, "", "", "", "")
            else:
                duration = f"{record.duration:.2f} s" if self.app.show_timing else "–"
                row = (
                    str(attempt),
                    outcome,
                    record.status,
                    duration,
                    record.run_id or "–",
                    record.turn_id or "–",
                )
            table.add_row(*row, key=str(attempt))
        if table.row_count:
            table.move_cursor(row=min(max(cursor, 0), table.row_count - 1))
        self._show_attempt(table.cursor_row + 1, force=True)

    def _update_figures(self) -> None:
        f = self.view.progress.figures(self.case_index)
        colours = palette(self.app)
        k = self.view.progress.k
        text = Text()
        text.append(f.name, style="bold")
        text.append(f"   {f.passed}/{f.n} passed   ")
        text.append(f"{f.wrong} wrong", style=colours.get("warning", "") if f.wrong else "")
        text.append("   ")
        text.append(f"{f.errored} errored", style=colours.get("error", "") if f.errored else "")
        if f.n:
            text.append(
                f"   pass@1 {two_decimals(f.pass_at_1)}   pass@{k} {two_decimals(f.pass_at_k)}"
                f"   pass^{k} {two_decimals(f.pass_hat_k)}"
            )
        if self.view.running:
            text.append("   (live)", style="dim")
        self.query_one("#case-figures", Static).update(text)

    @on(DataTable.RowHighlighted, "#case-attempts")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_attempt(event.cursor_row + 1)

    @on(DataTable.RowSelected, "#case-attempts")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_focus_answer()

    def _show_attempt(self, attempt: int, force: bool = False) -> None:
        if attempt == self._shown_attempt and not force:
            return
        self._shown_attempt = attempt
        record = self._records().get(attempt)
        verdict = self.query_one("#attempt-verdict", Static)
        answer = self.query_one("#attempt-answer", TextArea)
        answer.border_title = f"attempt {attempt}: answer"
        if record is None:
            verdict.update(Text(f"Attempt {attempt} has not finished yet.", style="dim"))
            answer.load_text("")
            return
        verdict.update(self._verdict_text(record))
        text = _answer_text(record.output)
        if answer.text != text:
            answer.load_text(text)

    def _verdict_text(self, record: AttemptRecord) -> Text:
        colours = palette(self.app)
        cell = CELL_OF_OUTCOME[record.outcome]
        text = Text()
        text.append(
            f"{SYMBOLS[cell]} {NAMES[cell]}", style=f"bold {colours.get(THEME_COLOUR[cell], '')}"
        )
        text.append(f"   Turn {record.status}")
        if record.outcome is Outcome.PASSED:
            text.append("   the check passed")
        elif record.outcome is Outcome.WRONG:
            text.append("\ncheck failed: ", style="bold")
            text.append(record.reason or "the answer did not pass the check")
        else:
            text.append("\nerror: ", style="bold")
            text.append(record.error or "no Turn")
        return text

    def action_focus_answer(self) -> None:
        self.query_one("#attempt-answer").focus()

    def action_focus_attempts(self) -> None:
        self.query_one(DataTable).focus()
