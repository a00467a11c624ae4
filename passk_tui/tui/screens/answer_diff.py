"""Two attempts' answers diffed (by default the case's first passing against its first failing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Select, Static

from passk_tui.core.run.attempt import AttemptRecord
from passk_tui.core.text.answer_diff import DiffLine, answer_diff, default_pair
from passk_tui.core.text.answers import shown_answer
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines
from passk_tui.tui.screens.view_screen import OUTCOME_LABEL, ViewScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.key_bar import KeyBar

#: The mark before each line of the diff, by its kind.
LINE_MARK = {"same": "  ", "removed": "- ", "added": "+ "}


def shown_diff(old: AttemptRecord, new: AttemptRecord) -> list[DiffLine]:
    """Two attempts' answers diffed as they are shown (escapes visible), so that the changed
    characters' positions are positions in the text on screen."""
    return answer_diff(
        terminal_safe_lines(shown_answer(old.output)), terminal_safe_lines(shown_answer(new.output))
    )


def diff_text(lines: list[DiffLine], role: Callable[[str], Style]) -> Text:
    """The diff's lines marked - and +, the changed characters highlighted in ``role``'s styles."""
    text = Text()
    for number, line in enumerate(lines):
        if number:
            text.append("\n")
        if line.kind == "same":
            text.append(LINE_MARK["same"] + line.text, style=role("muted"))
            continue
        style = role(line.kind)
        start = len(text)
        text.append(LINE_MARK[line.kind] + line.text)
        text.stylize(Style(color=style.color), start, len(text))
        for a, b in line.changed:
            text.stylize(style, start + 2 + a, start + 2 + b)
    return text


class DiffScreen(ViewScreen):
    """Any two attempts of a case, chosen above; their answers' lines and characters compared."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "swap", "Swap sides", tooltip="The other attempt as the reference")
    ]

    def __init__(
        self, view: EvaluationView, case_index: int, pair: tuple[int, int] | None = None
    ) -> None:
        super().__init__(view)
        self.case_index = case_index
        records = view.progress.records[case_index]
        self.pair = pair or default_pair(records)

    def _records(self) -> dict[int, AttemptRecord]:
        return {r.attempt: r for r in self.view.progress.records[self.case_index]}

    def compose(self) -> ComposeResult:
        records = sorted(self._records().values(), key=lambda r: r.attempt)
        options = [
            (f"attempt {r.attempt}  {OUTCOME_LABEL[r.outcome]}", r.attempt)
            for r in records
            if r.output is not None
        ]
        old, new = self.pair if self.pair else (Select.NULL, Select.NULL)
        yield Header()
        with Horizontal(id="diff-choose"):
            yield Select(options, value=old, prompt="attempt", id="diff-old", allow_blank=True)
            yield Select(options, value=new, prompt="attempt", id="diff-new", allow_blank=True)
        yield Static(id="diff-title", classes="view-line")
        with VerticalScroll(id="diff-body"):
            yield Static(id="diff-lines")
        yield KeyBar()

    @on(Select.Changed)
    def _chosen(self) -> None:
        old = self.query_one("#diff-old", Select).value
        new = self.query_one("#diff-new", Select).value
        if isinstance(old, int) and isinstance(new, int):
            self.pair = (old, new)
        self.refresh_view()

    def action_swap(self) -> None:
        if self.pair is None:
            return
        old, new = self.pair
        self.pair = (new, old)
        with self.prevent(Select.Changed):
            self.query_one("#diff-old", Select).value = new
            self.query_one("#diff-new", Select).value = old
        self.refresh_view()

    def refresh_view(self) -> None:
        title = self.query_one("#diff-title", Static)
        body = self.query_one("#diff-lines", Static)
        name = terminal_safe(self.view.progress.case_names[self.case_index])
        records = self._records()
        if self.pair is None or not all(a in records for a in self.pair):
            title.update(Text(f"{name}: no two different answers to compare yet.", style="dim"))
            body.update("")
            return
        old, new = (records[a] for a in self.pair)
        heading = Text(f"{name}   ", style="bold")
        heading.append_text(
            self.diff_heading(
                f"attempt {old.attempt}", old.outcome, f"attempt {new.attempt}", new.outcome
            )
        )
        title.update(heading)
        lines = shown_diff(old, new)
        if all(line.kind == "same" for line in lines):
            body.update(Text("The two answers are the same.", style="dim"))
            return
        body.update(diff_text(lines, self.role))
