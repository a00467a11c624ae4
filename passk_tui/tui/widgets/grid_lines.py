"""The parts of an attempts-grid line, as segments: the header's window label, a row's cells
and its figures.

Drawn from what the grid hands in (the cells shown, the figures as text, the styles of
its palette), so a row's part right of its name is the same for every row with the same
cells: the grid draws it once per such row pattern, not once per row (at 200 in flight a
pass of the run changes every row on screen at once, most of them alike).

Every run of text starts with its text, its padding a run of its own before it: SVG
viewers outside browsers drop a run's leading spaces (see widgets/line_text.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style

from passk_tui.core.reading.vocabulary import Cell
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS

GAP = "  "
#: Beside a case's name while it still has attempts to come (pending, in flight, or more
#: that an adaptive policy will hand out).
SAMPLED_MARK = "▸"
#: The figures coloured as their outcome when not zero: passed, wrong, errored.
_COUNTED = (Cell.PASSED, Cell.WRONG, Cell.ERRORED)


def window_label(first: int, last: int, longest: int, width: int) -> str:
    """The cells' heading, ``width`` wide: ``attempts``, or which of them the window shows
    (``attempts 1-40 of 1000 ←→``, shorter as room runs out)."""
    label = "attempts"
    if last - first + 1 < longest:
        arrows = ("←" if first > 1 else " ") + ("→" if last < longest else " ")
        fitting = [
            f"attempts {first}-{last} of {longest} {arrows}",
            f"{first}-{last} of {longest} {arrows}",
            f"{first}-{last}/{longest}{arrows}",
            f"{first}-{last}/{longest}{arrows.strip()}",
            f"{first}-{last}{arrows.strip()}",
        ]
        label = next((t for t in fitting if len(t) <= width), fitting[-1])
    return label[:width].ljust(width)


def cells_segments(
    cells: bytes, sampled: bool, width: int, step: int, palette: dict[str, Style]
) -> list[Segment]:
    """The sampled mark, then the cells shown (spaced out when ``step`` is 2), ``width`` wide."""
    base = palette[""]
    segments = [
        Segment(SAMPLED_MARK if sampled else " ", palette[NAMES[Cell.RUNNING]]),
        Segment(GAP, base),
    ]
    used = 0
    for index, state in enumerate(cells):
        cell = Cell(state)
        if step == 2 and index:
            segments.append(Segment(" ", base))
            used += 1
        segments.append(Segment(SYMBOLS[cell], palette[NAMES[cell]]))
        used += 1
    segments.append(Segment(" " * (width - used), base))
    return segments


def figures_segments(
    headers: Sequence[str], texts: Sequence[str], palette: dict[str, Style]
) -> list[Segment]:
    """Each figure right-aligned under its heading: the counts in their outcome's colour
    (when not zero), the rest as figures."""
    segments: list[Segment] = []
    for index, (header, text) in enumerate(zip(headers, texts, strict=False)):
        counted = _COUNTED[index] if index < len(_COUNTED) and text != "0" else None
        style = palette[NAMES[counted]] if counted is not None else palette["figure"]
        segments.append(Segment(" " * (len(GAP) + len(header) - len(text)), palette["pad"]))
        segments.append(Segment(text, style))
    segments.append(Segment(" ", palette[""]))
    return segments
