"""A case's distinct answers, most frequent first, with how the check judged each."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Header, Static

from passk_tui.core.render.answers import DistinctAnswers, distinct_answers
from passk_tui.core.text.amounts import counted
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines
from passk_tui.tui.app.messages import AttemptsOpened
from passk_tui.tui.screens.view_screen import ViewScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.key_bar import KeyBar

#: Characters of an answer shown in its table row (the whole answer is below).
ROW_ANSWER = 40


def attempts_text(attempts: tuple[int, ...], limit: int = 8) -> str:
    """``#1 #3 #5`` (then ``+N``), so a 100-attempt group stays one short cell."""
    shown = " ".join(f"#{a}" for a in attempts[:limit])
    return shown + (f" +{len(attempts) - limit}" if len(attempts) > limit else "")


class AnswersScreen(ViewScreen):
    """ "Sydney x4, Canberra x1": the answers a case got, grouped; the highlighted one in full."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_answer", "Copy answer", tooltip="The chosen answer, to the clipboard"),
        Binding("D", "diff", "Diff two attempts", tooltip="Two attempts' answers, line by line"),
    ]

    def __init__(self, view: EvaluationView, case_index: int) -> None:
        super().__init__(view)
        self.case_index = case_index
        self.answers = DistinctAnswers((), ())

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="answers-summary", classes="view-line")
        yield DataTable(id="answers-table", cursor_type="row", classes="view-table")
        with VerticalScroll(classes="view-detail"):
            yield Static(id="answers-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("count", "verdicts", "answer", "attempts")
        super().on_mount()
        table.focus()

    def refresh_view(self) -> None:
        name = self.view.progress.case_names[self.case_index]
        self.answers = distinct_answers(self.view.progress.records[self.case_index])
        summary = Text()
        summary.append(terminal_safe(name), style="bold")
        distinct = len(self.answers.groups)
        summary.append(f"   {counted(distinct, 'distinct answer')}: ")
        summary.append(terminal_safe(self.answers.summary()) or "none yet")
        summary.append(self.live_note(), style="dim")
        self.query_one("#answers-summary", Static).update(summary)
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        for group in self.answers.groups:
            flat = terminal_safe(" ".join(group.text.split())) or '""'
            short = flat if len(flat) <= ROW_ANSWER else flat[: ROW_ANSWER - 1] + "…"
            table.add_row(
                Text(f"x{group.count}", justify="right"),
                self.counts_text(group.passed, group.wrong, group.errored),
                Text(short),  # a cell's str would be read as markup
                attempts_text(group.attempts),
            )
        if self.answers.no_answer:
            table.add_row(
                Text(f"x{len(self.answers.no_answer)}", justify="right"),
                Text("errored", style=self.role("errored")),
                Text("no answer (errored before any output)", style="dim"),
                attempts_text(self.answers.no_answer),
            )
        if table.row_count:
            table.move_cursor(row=min(max(cursor, 0), table.row_count - 1))
        self._show_detail(table.cursor_row)

    @on(DataTable.RowSelected, "#answers-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        """Enter: the case's attempts that gave this answer, each beside its detail."""
        groups = self.answers.groups
        if event.cursor_row < len(groups):
            group = groups[event.cursor_row]
            flat = terminal_safe(" ".join(group.text.split())) or '""'
            short = flat if len(flat) <= ROW_ANSWER else flat[: ROW_ANSWER - 1] + "…"
            attempts, about = group.attempts, f"that answered {short}"
        elif self.answers.no_answer:
            attempts, about = self.answers.no_answer, "that errored before any answer"
        else:
            return
        self.post_message(AttemptsOpened(self.view, self.case_index, attempts, about))

    @on(DataTable.RowHighlighted, "#answers-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        detail = self.query_one("#answers-detail", Static)
        groups = self.answers.groups
        if not 0 <= row < len(groups):
            detail.update(Text("No answer to show.", style="dim") if not groups else "")
            return
        group = groups[row]
        text = Text()
        text.append(f"attempts {attempts_text(group.attempts, limit=50)}\n", style="dim")
        text.append(terminal_safe_lines(group.text))
        detail.update(text)

    def action_copy_answer(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.answers.groups):
            self.app.copy_to_clipboard(self.answers.groups[row].text)
            self.notify("Answer copied.")

    def action_diff(self) -> None:
        from passk_tui.tui.screens.answer_diff import DiffScreen

        self.app.push_screen(DiffScreen(self.view, self.case_index))
