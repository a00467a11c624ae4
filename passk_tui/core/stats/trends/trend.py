"""One case's pass@1 over an agent's stored evaluations, each with its interval: the Trends view."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.stats.rates.intervals import DEFAULT_CONFIDENCE, Interval
from passk_tui.core.stats.trends.flakiness import Measurement


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """The case in one evaluation: its pass@1 and that figure's interval, and its verdict."""

    evaluation: str
    created: float
    version: int
    n: int
    pass_at_1: Fraction
    interval: Interval
    verdict: bool | None
    """True passed (the gate, or all passed), False not, None: no verdict."""
    imported: bool


def case_trend(
    series: Sequence[Measurement], name: str, confidence: float = DEFAULT_CONFIDENCE
) -> list[TrendPoint]:
    """A point per evaluation (oldest first) that measured ``name``.

    Every point's interval is at the same ``confidence``, so that their widths compare over
    time; each by its own evaluation's method (anytime-valid where n was chosen by looking).
    """
    points = []
    for m in series:
        for f in m.figures:
            if f.name != name or not f.n:
                continue
            interval = f.intervals(confidence, m.method).pass_at_1
            assert f.pass_at_1 is not None and interval is not None  # n > 0 defines both
            points.append(
                TrendPoint(
                    m.id,
                    m.created,
                    m.version,
                    f.n,
                    f.pass_at_1,
                    interval,
                    m.verdicts.get(name),
                    m.imported,
                )
            )
    return points
