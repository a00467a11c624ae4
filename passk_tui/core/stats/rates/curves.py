"""A case's pass@k and pass^k for every k from 1 to n, each with its interval: the curve over k."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.stats.rates.figures import pass_at_k, pass_hat_k
from passk_tui.core.stats.rates.intervals import (
    CLOPPER_PEARSON,
    DEFAULT_CONFIDENCE,
    Interval,
    IntervalMethod,
    pass_at_k_interval,
    pass_hat_k_interval,
)


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """pass@k and pass^k at one k, exact, with the intervals mapped from the rate's."""

    k: int
    pass_at_k: Fraction
    pass_hat_k: Fraction
    pass_at_k_interval: Interval
    pass_hat_k_interval: Interval


@dataclass(frozen=True, slots=True)
class Curve:
    """Every k of one case (none before its first attempt), at one level, by one method."""

    passed: int
    n: int
    points: tuple[CurvePoint, ...]
    confidence: float
    method: str


def pass_curve(
    passed: int,
    n: int,
    confidence: float = DEFAULT_CONFIDENCE,
    method: IntervalMethod = CLOPPER_PEARSON,
    order: bytes | None = None,
) -> Curve:
    """pass@k and pass^k for k = 1..n from ``passed`` of ``n`` attempts (the unbiased estimators);
    ``order``: the outcomes by attempt number, for a method that reads them (anytime-valid)."""
    rate = method.rate(passed, n, confidence, order)
    points = tuple(
        CurvePoint(
            k,
            pass_at_k(n, passed, k),
            pass_hat_k(n, passed, k),
            pass_at_k_interval(rate, k),
            pass_hat_k_interval(rate, k),
        )
        for k in range(1, n + 1)
    )
    return Curve(passed, n, points, confidence, method.name)
