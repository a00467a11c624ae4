"""The `/` search: a one-line field that narrows a screen's list to the names that contain it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input


def matching(names: Sequence[str], query: str) -> list[int]:
    """The indices of the names containing ``query`` (ignoring case); all of them for no query."""
    needle = query.strip().casefold()
    return [i for i, name in enumerate(names) if needle in name.casefold()]


class SearchBar(Input):
    """Hidden until `/`; typing narrows the list live, Enter keeps the search, Escape drops it."""

    DEFAULT_CSS = "SearchBar { display: none; } SearchBar.-open { display: block; }"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "drop", "Clear search", show=False, tooltip="Every row again"),
    ]

    class Searched(Message):
        """The search text changed (empty: show everything)."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Closed(Message):
        """The search field closed: focus goes back to the list."""

    def __init__(self, *, id: str = "search") -> None:
        super().__init__(placeholder="search case names (Enter keeps, Escape clears)", id=id)
        self.compact = True

    def open(self) -> None:
        self.add_class("-open")
        self.focus()

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Searched(event.value))

    @on(Input.Submitted)
    def _kept(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.value:
            self.remove_class("-open")
        self.post_message(self.Closed())

    def action_drop(self) -> None:
        self.value = ""
        self.remove_class("-open")
        self.post_message(self.Closed())
