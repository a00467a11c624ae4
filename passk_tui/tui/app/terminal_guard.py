"""The last guard between the app and the terminal: no control character is ever drawn.

Outside text (answers, errors, names, paths) is made visible where it enters a
screen (``core.text.terminal_text``). A widget that draws text it was not handed by
us (an ``Input`` holding a pasted escape, a toast, the command palette) would
still send it raw; this filter, applied by the app to every line it draws,
removes what is left. It removes rather than escapes: the line is already laid
out, and an unsafe character takes no cell where its escape would take several.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from passk_tui.core.text.terminal_text import first_unsafe, without_unsafe


class UnsafeCharacters(LineFilter):
    """Drops control characters, bidi overrides and lone surrogates from drawn lines."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        """The segments as they were, or (rarely) new ones without the unsafe characters."""
        if first_unsafe("".join(text for text, _, _ in segments)) is None:
            return segments
        return [Segment(without_unsafe(text), style, control) for text, style, control in segments]
