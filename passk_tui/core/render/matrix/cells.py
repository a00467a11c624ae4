"""A matrix cell (one case on one target) as every face shows it: a band, a symbol, the figure
and its interval.

Colour alone would leave a reader who cannot tell green from red without the verdict,
so each band has its own symbol too; the bands are fixed cut points of pass@k, the
same in the app and the HTML report, so a cell reads the same wherever it is seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from passk_tui.core.stats.gating.gate import CaseReading
from passk_tui.core.text.figure_text import UNDEFINED, interval_text, two_decimals


class Band(Enum):
    """Where a case's pass@k lies: its colour's name (the value) and its symbol."""

    HIGH = "high"
    MID = "mid"
    LOW = "low"
    NONE = "none"

    @property
    def symbol(self) -> str:
        return {"high": "●", "mid": "◐", "low": "○", "none": "·"}[self.value]


#: At or above: solid. Below MID_FROM: mostly failing.
HIGH_FROM = 0.9
MID_FROM = 0.5


def band(case: CaseReading) -> Band:
    """The band of the case's exact pass@k; NONE while it is undefined (fewer than k attempts)."""
    value = case.figures.pass_at_k
    if value is None:
        return Band.NONE
    if value >= HIGH_FROM:
        return Band.HIGH
    return Band.MID if value >= MID_FROM else Band.LOW


#: The gate's verdict on a case, as a cell says it after the figures.
GATE_MARKS = {"pass": "✓", "fail": "✗", "undecided": "?"}


def cell_text(case: CaseReading, *, interval: bool = True) -> str:
    """``● 0.93 0.71-0.99 ✓``: symbol, pass@k, its interval (rounded outward), the gate's mark."""
    parts = [band(case).symbol, two_decimals(case.figures.pass_at_k)]
    found = case.intervals.pass_at_k
    if interval:
        parts.append(interval_text(found) if found is not None else UNDEFINED)
    if case.verdict is not None:
        parts.append(GATE_MARKS[case.verdict])
    return " ".join(parts)


def interval_scale(case: CaseReading, width: int = 10) -> str:
    """pass@k's interval drawn on [0, 1] in ``width`` characters: ``━`` where the interval
    lies, ``┃`` at the figure, ``·`` elsewhere (``··━━━━┃━━·``); blank while undefined."""
    found, value = case.intervals.pass_at_k, case.figures.pass_at_k
    if found is None or value is None:
        return " " * width

    def at(x: float) -> int:
        return min(width - 1, int(x * width))

    marks = ["·"] * width
    for i in range(at(found.low), at(found.high) + 1):
        marks[i] = "━"
    marks[at(float(value))] = "┃"
    return "".join(marks)


#: The Matrix screen's orders: the file's, each target's (weakest first), the largest difference.
FILE_ORDER = "file"
DIFFERENCE = "difference"


def spread(cases: Sequence[CaseReading | None]) -> float:
    """How far apart a case's pass@k lies across targets (largest minus smallest; 0 with fewer
    than two defined), as the largest-difference order reads it."""
    values = [float(c.figures.pass_at_k) for c in cases if c and c.figures.pass_at_k is not None]
    return max(values) - min(values) if len(values) > 1 else 0.0


def matrix_order(rows: Sequence[Sequence[CaseReading | None]], by: str | int) -> list[int]:
    """Row positions in the order ``by`` names: ``FILE_ORDER``; a target's position (its
    weakest pass@k first, undefined last); ``DIFFERENCE`` (the largest spread first). Ties
    keep the file's order."""
    if by == FILE_ORDER:
        return list(range(len(rows)))
    if by == DIFFERENCE:
        return sorted(range(len(rows)), key=lambda i: -spread(rows[i]))

    def weakest(i: int) -> tuple[bool, float]:
        case = rows[i][int(by)]
        value = None if case is None else case.figures.pass_at_k
        return (value is None, 0.0 if value is None else float(value))

    return sorted(range(len(rows)), key=weakest)
