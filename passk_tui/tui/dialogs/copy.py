"""A small dialog: choose what to put on the clipboard (an answer, an error, an id, a command)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from passk_tui.core.text.terminal_text import terminal_safe

#: Characters of each choice's text previewed after its label.
PREVIEW = 40


class CopyScreen(ModalScreen[None]):
    """Each choice is (what it is, its text); Enter copies one through the terminal (OSC 52)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", tooltip="Close without copying")
    ]

    def __init__(self, choices: Sequence[tuple[str, str]], note: str = "") -> None:
        super().__init__(classes="view-dialog")
        self.choices = list(choices)
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Copy to the clipboard", classes="view-line")
            yield OptionList(
                *(
                    Option(Text(f"{label}: {_preview(text)}"), id=str(index))
                    for index, (label, text) in enumerate(self.choices)
                ),
                id="copy-choices",
            )
            if self.note:
                yield Static(self.note, classes="view-note")

    @on(OptionList.OptionSelected, "#copy-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        label, text = self.choices[int(event.option.id or 0)]
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied the {label}.")
        self.dismiss()


def _preview(text: str) -> str:
    """The text on one line, as written (escapes visible), cut to PREVIEW."""
    flat = terminal_safe(" ".join(text.split()))
    return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 1] + "…"
