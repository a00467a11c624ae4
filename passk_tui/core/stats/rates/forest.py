"""Across cases, one interval per case (a forest plot): the figure the gate reads, and its verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.intervals import (
    CLOPPER_PEARSON,
    DEFAULT_CONFIDENCE,
    GateVerdict,
    Interval,
    IntervalMethod,
    gate_verdict,
)

ForestFigure = Literal["pass@k", "pass@1", "pass^k"]
#: The figures a forest can show, in the order a key cycles through them.
FOREST_FIGURES: tuple[ForestFigure, ...] = ("pass@k", "pass@1", "pass^k")


@dataclass(frozen=True, slots=True)
class ForestRow:
    """One case's figure and interval; both None while the figure is undefined (n < k)."""

    name: str
    n: int
    estimate: Fraction | None
    interval: Interval | None
    verdict: GateVerdict | None
    """Against the --require gate (pass@k only); None without a gate or a figure."""


def forest_rows(
    figures: Sequence[CaseFigures],
    figure: ForestFigure = "pass@k",
    require: Fraction | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    method: IntervalMethod = CLOPPER_PEARSON,
) -> list[ForestRow]:
    """A row per case in file order: its ``figure`` and that figure's interval."""
    rows = []
    for f in figures:
        k = 1 if figure == "pass@1" else f.k
        if f.n == 0 or f.n < k:
            rows.append(ForestRow(f.name, f.n, None, None, None))
            continue
        intervals = f.intervals(confidence, method)
        if figure == "pass@1":
            estimate, interval = f.pass_at_1, intervals.pass_at_1
        elif figure == "pass^k":
            estimate, interval = f.pass_hat_k, intervals.pass_hat_k
        else:
            estimate, interval = f.pass_at_k, intervals.pass_at_k
        # The gate reads pass@k only; past the `n < k` test above its interval is never None.
        verdict = (
            gate_verdict(interval, require)
            if figure == "pass@k" and require is not None and interval is not None
            else None
        )
        rows.append(ForestRow(f.name, f.n, estimate, interval, verdict))
    return rows
