"""A yes/no question asked before something that cannot be undone (cancel, quit)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from passk_tui.core.text.terminal_text import terminal_safe_lines


class ConfirmScreen(ModalScreen[bool]):
    """Asks ``question``; dismisses with True for yes, False for no (Escape is no)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", tooltip="Yes, do it"),
        Binding("n,escape", "answer(False)", "No", tooltip="No, leave it"),
    ]

    def __init__(
        self, question: str, yes: str = "Yes", no: str = "No", *, about_run: bool = False
    ) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no
        #: A question about the running evaluation: moot (and closed) once it ends.
        self.about_run = about_run

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            # As text, never markup: a question names cases and evaluations.
            yield Static(Text(terminal_safe_lines(self.question)), id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="confirm-yes")
                yield Button(f"{self.no} (n)", variant="primary", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    @on(Button.Pressed, "#confirm-yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-no")
    def _no(self) -> None:
        self.dismiss(False)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
