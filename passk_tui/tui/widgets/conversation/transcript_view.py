"""The Case screen's conversation: an attempt's transcript, one entry per message.

User, assistant and tool entries differ by label (``user``, ``assistant``, ``tool
refund``) and by colour, so the conversation reads in either. A tool call is folded
to one line (its arguments and result) until Enter opens it; long messages wrap. Every
text comes from outside (the model, the tools), so it is made terminal-safe first.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from passk_tui.core.render.transcript_text import Entry, entries
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines
from passk_tui.core.transcript import Transcript
from passk_tui.tui.widgets.glyphs import palette

#: The theme colour of each speaker's label (the label alone tells them apart too).
ROLE_COLOUR = {
    "user": "accent",
    "assistant": "primary",
    "tool": "muted-text",
    "cut": "outcome-errored",
}
#: What marks a folded entry and an opened one.
FOLDED, OPENED = "▸", "▾"


class TranscriptView(OptionList):
    """An attempt's transcript as a list of entries; Enter opens or folds the one under the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open/fold", tooltip="Open or fold the entry (a tool call)"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: list[Entry] = []
        self._opened: set[int] = set()

    def show(self, transcript: Transcript) -> None:
        """Show ``transcript``, every entry folded."""
        self._entries = entries(transcript)
        self._opened = set()
        self._redraw(0)

    def redraw(self) -> None:
        """Draw again (a new theme), keeping the cursor and what is open."""
        self._redraw(self.highlighted or 0)

    def _redraw(self, cursor: int) -> None:
        colours = palette(self.app)
        self.clear_options()
        self.add_options(
            Option(self._prompt(n, entry, colours), id=str(n))
            for n, entry in enumerate(self._entries)
        )
        if self._entries:
            self.highlighted = min(cursor, len(self._entries) - 1)

    def _prompt(self, number: int, entry: Entry, colours: dict[str, str]) -> Text:
        """Its label (coloured, bold), what it took, then its text: folded or whole."""
        opened = number in self._opened or not entry.folded
        colour = colours.get(ROLE_COLOUR.get(entry.role, "foreground"), "")
        text = Text()
        mark = "" if not entry.folded else (OPENED if opened else FOLDED) + " "
        text.append(f"{mark}{terminal_safe(entry.label)}", style=f"bold {colour}")
        if entry.error:
            text.append(" (error)", style=f"bold {colours.get('outcome-errored', '')}")
        if entry.detail:
            text.append(f"  {entry.detail}", style=colours.get("muted-text", ""))
        body = entry.body if opened else entry.line
        text.append("\n")
        text.append(terminal_safe_lines(body) if opened else terminal_safe(body))
        return text

    @on(OptionList.OptionSelected)
    def _toggle(self, event: OptionList.OptionSelected) -> None:
        """Enter on an entry that does not say it all opens it (again: folds it)."""
        event.stop()
        number = event.option_index
        if not self._entries[number].folded:
            return
        self._opened ^= {number}
        self._redraw(number)
