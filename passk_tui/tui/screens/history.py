"""The history screen: earlier evaluations from the store; open any in Results."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Static


class HistoryScreen(Screen[None]):
    """Lists stored evaluations (the store is not available yet)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("The evaluation store is not available in this build yet.", id="history-note")
        yield Footer()
