"""A small dialog: how many attempts per case to extend an evaluation to, and what that costs."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from passk_tui.core.errors import InputError
from passk_tui.core.run.policy import extension_runs, parse_more_attempts, worth_more
from passk_tui.core.text.amounts import counted
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.screens.view_screen import VIEWS_CSS
from passk_tui.tui.view import EvaluationView


def extension_question(view: EvaluationView, attempts: int) -> str:
    """The confirmation, in Runs: extending runs every missing attempt up to N of every case."""
    figures = view.progress.all_figures()
    runs = extension_runs(figures, attempts)
    wanted = len(worth_more(view.reading()))
    return (
        f"Extend evaluation {view.evaluation_id} to {attempts} attempts per case?\n\n"
        f"That is {counted(runs, 'more Run')} for its {counted(len(figures), 'case')} "
        f"({wanted} of them undecided or flaky; as `--resume ID --attempts {attempts}`, every "
        "case gets the attempts). The attempts made stay; the grid grows. "
        + view.read().extending_note
    ).rstrip()


class MoreAttemptsScreen(ModalScreen[int | None]):
    """Type N; each keystroke says how many Runs that is; Enter (when valid) dismisses with N."""

    CSS_PATH = VIEWS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close", tooltip="Close, no attempts added")
    ]

    def __init__(self, view: EvaluationView) -> None:
        super().__init__(classes="view-dialog")
        self.view = view
        self.stored = max(
            view.settings.attempts, max((f.n for f in view.progress.all_figures()), default=0)
        )

    def compose(self) -> ComposeResult:
        worth = worth_more(self.view.reading())
        names = [self.view.progress.case_names[i] for i in worth]
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        with Vertical():
            yield Static(
                Text(
                    f"More attempts: {counted(len(worth), 'case')} undecided "
                    f"or flaky{': ' + terminal_safe(shown) if names else ''}"
                ),
                classes="view-line",
            )
            yield Input(str(self.stored * 2), id="more-attempts")
            yield Static(id="more-attempts-cost", classes="view-note")

    def on_mount(self) -> None:
        self._show_cost(self.query_one(Input).value)
        self.query_one(Input).focus()

    def _parsed(self, text: str) -> int | None:
        try:
            return parse_more_attempts(text, self.stored)
        except InputError as exc:
            self.query_one("#more-attempts-cost", Static).update(
                Text(f"Attempts per case {terminal_safe(str(exc))}", style="bold")
            )
            return None

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._show_cost(event.value)

    def _show_cost(self, text: str) -> None:
        attempts = self._parsed(text)
        if attempts is None:
            return
        runs = extension_runs(self.view.progress.all_figures(), attempts)
        self.query_one("#more-attempts-cost", Static).update(
            f"Attempts per case, up to {attempts}: {runs} more Runs. Enter asks to confirm."
        )

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        attempts = self._parsed(event.value)
        if attempts is not None:
            self.dismiss(attempts)
