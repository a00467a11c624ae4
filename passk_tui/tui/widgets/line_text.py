"""Lines of styled parts laid out so that no part starts with a space.

Screenshots are SVG with one ``<text>`` per styled run at its own x. Viewers
outside browsers (rsvg, image previews) drop a run's leading spaces, which
shifted right-aligned numbers left and glued parts together
(``arithmetic5/5 passed``). A run that ends in its spaces draws the same in a
terminal and everywhere else, so spaces go at the end of the part before.
"""

from __future__ import annotations

from rich.text import Text


def parts_line(*parts: tuple[str, str]) -> Text:
    """``(text, style)`` parts joined into one line, each part's leading spaces moved back
    into the part before (in its style, so they join its run rather than start the next)."""
    line = Text()
    previous_style = "not italic"  # before the first part: a run of spaces of its own
    for text, style in parts:
        stripped = text.lstrip(" ")
        if len(stripped) < len(text):
            line.append(" " * (len(text) - len(stripped)), style=previous_style)
        if stripped:
            line.append(stripped, style=style)
            previous_style = style
    return line


#: No-op attributes that keep a cell's padding and its text in runs of their own.
_PAD = "not strike"
_TEXT = "not italic"


def right_aligned(text: str, width: int, style: str = "") -> Text:
    """``text`` at the right of ``width`` cells, its padding a run of its own (never leading)."""
    pad = max(0, width - len(text))
    aligned = Text()
    if pad:
        aligned.append(" " * pad, style=_PAD)
    aligned.append(text, style=f"{style} {_TEXT}".strip())
    return aligned


def left_aligned(text: str, style: str = "") -> Text:
    """A table cell's text in a run apart from the table's padding before it."""
    return Text(text, style=f"{style} {_TEXT}".strip())
