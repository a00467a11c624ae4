"""Two attempts' answers diffed (by default the case's first passing against its first failing).

The passing answer is the reference, in its own colour; the failing one is marked."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Select, Static

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.render.answer_diff import default_pair
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.screens.view_screen import OUTCOME_LABEL, ViewScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.diff_text import diff_text, shown_diff
from passk_tui.tui.widgets.glyphs import palette
from passk_tui.tui.widgets.key_bar import KeyBar


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
        body.update(diff_text(lines, old.outcome, new.outcome, palette(self.app)))
