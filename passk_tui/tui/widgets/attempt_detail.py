"""The Case screen's right pane: the attempt under the list's cursor, beside the list.

As a log viewer shows the line under its cursor in a panel beside the lines, the
pane follows the attempts list: the verdict (outcome, Turn status, the check's
reason or the error), the answer, and for a failing attempt with an answer, a diff
against the case's first passing answer (the reference), so what went wrong is
on screen without opening the diff view.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static, TextArea

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.reading.vocabulary import CELL_OF_OUTCOME
from passk_tui.core.render.judge_text import vote_heading, votes_said
from passk_tui.core.text.amounts import retries_text
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines
from passk_tui.tui.widgets.conversation.transcript_view import TranscriptView
from passk_tui.tui.widgets.diff_text import diff_text, shown_diff
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS, THEME_COLOUR, palette
from passk_tui.tui.widgets.line_text import parts_line


def finish_text(finish_reason: str | None) -> str:
    """`` · finish: length`` for an answer that ended other than normally ('stop'), else ''.

    A cut-off answer is judged like any other, so the verdict line says it was cut off."""
    if finish_reason is None or finish_reason == "stop":
        return ""
    return f" · finish: {terminal_safe(finish_reason)}"


def answer_text(output: Any) -> str:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False, indent=2)


def why_no_answer(record: AttemptRecord) -> str:
    """What an empty answer box says: why there is nothing in it."""
    if record.outcome is Outcome.ERRORED:
        return f"no answer: the Turn ended {terminal_safe(record.status)} (the error is above)"
    return "the answer was empty"


class AttemptDetail(Vertical):
    """One attempt: its verdict, its answer, and (failing) its diff against the reference."""

    def compose(self) -> ComposeResult:
        yield Static(id="attempt-verdict")
        with VerticalScroll(id="attempt-diff"):
            yield Static(id="attempt-diff-lines")
        yield TextArea("", id="attempt-answer", read_only=True, soft_wrap=True, show_cursor=False)
        yield TranscriptView(id="attempt-transcript")
        with VerticalScroll(id="attempt-votes"):
            yield Static(id="attempt-votes-lines")

    def show_pending(self, attempt: int) -> None:
        muted = palette(self.app).get("muted-text", "")
        self.query_one("#attempt-verdict", Static).update(
            Text(f"Attempt {attempt} has not finished yet.", style=muted)
        )
        answer = self.query_one("#attempt-answer", TextArea)
        answer.border_title = f"attempt {attempt}: answer"
        answer.placeholder = "no answer yet"
        answer.load_text("")
        answer.display = True
        self.query_one("#attempt-diff").display = False
        self.query_one(TranscriptView).display = False
        self.query_one("#attempt-votes").display = False

    def show(self, record: AttemptRecord, verdict: Text, reference: AttemptRecord | None) -> None:
        """``record`` with its ``verdict`` line; beside ``reference`` (a passing attempt)
        when it failed with an answer."""
        self.query_one("#attempt-verdict", Static).update(verdict)
        conversation = self.query_one(TranscriptView)
        answer = self.query_one("#attempt-answer", TextArea)
        # An attempt that held a conversation (or called tools) is shown as one: its last
        # answer is the conversation's last assistant message.
        conversation.display = record.transcript is not None
        answer.display = record.transcript is None
        if record.transcript is not None:
            conversation.border_title = f"attempt {record.attempt}: conversation (Enter: open)"
            conversation.show(record.transcript)
            self.query_one("#attempt-diff").display = False
            return
        answer.border_title = f"attempt {record.attempt}: answer"
        text = terminal_safe_lines(answer_text(record.output))
        answer.placeholder = why_no_answer(record)
        if answer.text != text:
            answer.load_text(text)
        self._show_votes(record)
        box = self.query_one("#attempt-diff", VerticalScroll)
        failing = record.outcome is not Outcome.PASSED and record.output is not None
        box.display = failing and reference is not None
        if reference is None or not failing:
            return
        box.border_title = f"against attempt {reference.attempt}, which passed"
        lines = shown_diff(reference, record)
        colours = palette(self.app)
        body = (
            Text("The same answer as the passing one.", style=colours.get("muted-text", ""))
            if all(line.kind == "same" for line in lines)
            else diff_text(lines, reference.outcome, record.outcome, colours)
        )
        self.query_one("#attempt-diff-lines", Static).update(body)

    def _show_votes(self, record: AttemptRecord) -> None:
        """The judge's Runs on the answer, each its verdict and its text, beside the answer."""
        box = self.query_one("#attempt-votes", VerticalScroll)
        box.display = bool(record.votes)
        if not record.votes:
            return
        box.border_title = f"judge: {votes_said(record)}"
        body = Text()
        for vote in record.votes:
            if body:
                body.append("\n\n")
            body.append(terminal_safe(vote_heading(vote)), style="bold")
            if vote.text:
                body.append("\n" + terminal_safe_lines(vote.text))
        self.query_one("#attempt-votes-lines", Static).update(body)


#: How much of a Ray node id the Case screen shows (ids are 56 hex digits; 12 tell them apart).
NODE_CHARS = 12


def verdict_text(
    record: AttemptRecord,
    colours: dict[str, str],
    has_check: bool,
    decided_by: str | None = None,
) -> Text:
    """``✗ wrong · Turn completed`` and why: the check's reason, or the error; an imported
    attempt's verdict is its tool's (``decided_by``), not ours."""
    cell = CELL_OF_OUTCOME[record.outcome]
    text = parts_line(
        (f"{SYMBOLS[cell]} {NAMES[cell]}", f"bold {colours.get(THEME_COLOUR[cell], '')}"),
        (f" · Turn {terminal_safe(record.status)}", ""),
        (f" · {retries_text(record.retries)}" if record.retries else "", ""),
        (finish_text(record.finish_reason), ""),
        (f" · node {terminal_safe(record.node[:NODE_CHARS])}" if record.node else "", ""),
        (f" · {votes_said(record)}" if record.votes else "", ""),
    )
    if record.outcome is Outcome.PASSED and decided_by is not None:
        text.append(f" · {decided_by}")
    elif record.outcome is Outcome.PASSED and not has_check:
        text.append(" · completion only: no check, a completed Turn passes")
    elif record.outcome is Outcome.PASSED:
        text.append(" · the check passed")
    elif record.outcome is Outcome.WRONG:
        text.append("\ncheck failed: ", style="bold")
        text.append(terminal_safe_lines(record.reason or "the answer did not pass the check"))
    else:
        text.append("\nerror: ", style="bold")
        text.append(terminal_safe_lines(record.error or "no Turn"))
    return text
