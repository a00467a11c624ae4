"""Intervals for a case's per-attempt pass rate, mapped exactly through pass@1, pass@k and pass^k.

Five attempts cannot tell 0.9 from 0.95: every figure is shown with the range of
pass rates its attempts are consistent with. An ``IntervalMethod`` turns (passes,
attempts, level) into an interval for the per-attempt rate p; the figures are
monotone in p, so their intervals are the images of the rate's end points.

The fixed-n method is the exact Clopper-Pearson interval (Clopper & Pearson,
"The use of confidence or fiducial limits illustrated in the case of the
binomial", Biometrika 26, 1934): the set of p not rejected by either one-sided
binomial test at (1-C)/2. Its coverage is at least C for every p, which is the
promise the confident gate rests on. A second kind (the anytime-valid interval
of adaptive attempts) plugs in beside it as another ``IntervalMethod``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import exp, lgamma, log, log1p
from typing import Literal, Protocol

DEFAULT_CONFIDENCE = 0.95

GateVerdict = Literal["pass", "fail", "undecided"]


@dataclass(frozen=True, slots=True)
class Interval:
    """A closed range [low, high] inside [0, 1]."""

    low: float
    high: float

    @property
    def width(self) -> float:
        return self.high - self.low


class IntervalMethod(Protocol):
    """How an interval for the per-attempt pass rate is made from (passes, attempts, level)."""

    #: Stable identifier written to exports (``clopper-pearson``).
    name: str
    #: How the faces name it to a person.
    label: str

    def rate(self, passed: int, n: int, confidence: float, order: bytes | None = None) -> Interval:
        """The interval for p from ``passed`` of ``n`` attempts at level ``confidence``.

        ``order``: the n outcomes by attempt number (1 a pass, 0 not), for a method whose
        interval depends on them (the anytime-valid one); a fixed-n method ignores it.
        """
        ...

    def __hash__(self) -> int:
        """A method is a key of ``case_intervals``' cache: each is one object, hashed as itself."""
        ...


class ClopperPearson:
    """The exact (Clopper-Pearson) interval: valid at a fixed, planned number of attempts."""

    name = "clopper-pearson"
    label = "exact (Clopper-Pearson)"

    def rate(self, passed: int, n: int, confidence: float, order: bytes | None = None) -> Interval:
        """The interval from the counts alone: at a planned n, the order of outcomes says nothing."""
        check_counts(passed, n)
        check_level(confidence)
        if n == 0:
            return Interval(0.0, 1.0)
        tail = (1.0 - confidence) / 2.0
        return Interval(
            _cp_lower(passed, n, tail),
            1.0 - _cp_lower(n - passed, n, tail),
        )

    def __repr__(self) -> str:
        return "ClopperPearson()"


CLOPPER_PEARSON = ClopperPearson()


def pass_at_k_interval(rate: Interval, k: int) -> Interval:
    """pass@k = 1-(1-p)^k is increasing in p, so its interval is [1-(1-L)^k, 1-(1-U)^k]."""
    return Interval(1.0 - (1.0 - rate.low) ** k, 1.0 - (1.0 - rate.high) ** k)


def pass_hat_k_interval(rate: Interval, k: int) -> Interval:
    """pass^k = p^k is increasing in p, so its interval is [L^k, U^k]."""
    return Interval(rate.low**k, rate.high**k)


@dataclass(frozen=True, slots=True)
class CaseIntervals:
    """One case's intervals at one level, with the method that made them."""

    rate: Interval
    pass_at_k: Interval
    pass_hat_k: Interval
    confidence: float
    method: str

    @property
    def pass_at_1(self) -> Interval:
        """pass@1 estimates p itself, so its interval is the rate's."""
        return self.rate


@lru_cache(maxsize=65536)
def case_intervals(
    passed: int,
    n: int,
    k: int,
    confidence: float = DEFAULT_CONFIDENCE,
    method: IntervalMethod = CLOPPER_PEARSON,
    order: bytes | None = None,
) -> CaseIntervals:
    """The intervals of a case with ``passed`` of ``n`` attempts (``order``: as the method's
    ``rate`` takes it); with none, everything is [0, 1]. Cached (frozen, so shared safely):
    10,000 cases of 5 attempts hold six distinct counts, and each reading or redraw asks for
    every case (0.065 -> 0.025 s of CPU a reading)."""
    rate = method.rate(passed, n, confidence, order)
    return CaseIntervals(
        rate,
        pass_at_k_interval(rate, k),
        pass_hat_k_interval(rate, k),
        confidence,
        method.name,
    )


def gate_verdict(interval: Interval, require: Fraction) -> GateVerdict:
    """The confident gate: pass when the whole interval is at or above X, fail when wholly below."""
    if interval.low >= require:
        return "pass"
    if interval.high < require:
        return "fail"
    return "undecided"


def check_counts(passed: int, n: int) -> None:
    """Every interval method refuses impossible counts the same way."""
    if not 0 <= passed <= n:
        raise ValueError(f"need 0 <= passed <= n, got passed={passed}, n={n}")


def check_level(confidence: float) -> None:
    """Every interval method refuses a level outside (0, 1) the same way."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"need 0 < confidence < 1, got {confidence}")


@lru_cache(maxsize=65536)
def _cp_lower(passed: int, n: int, tail: float) -> float:
    """The p at which P(X >= passed | n, p) = tail, i.e. I_p(passed, n-passed+1) = tail.

    Found by bisection on the regularized incomplete beta function, which is
    increasing in p: sixty halvings take the bracket below 1e-18, far under the
    1e-9 the tests hold it to. Cached, because the live app asks again and again.
    """
    if passed == 0:
        return 0.0
    a, b = float(passed), float(n - passed + 1)
    lo, hi = 0.0, 1.0
    for _ in range(64):
        mid = (lo + hi) / 2.0
        if regularized_beta(a, b, mid) < tail:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, by its continued fraction.

    The binomial tail is P(X >= c | n, p) = I_p(c, n-c+1). The continued fraction
    (Numerical Recipes, 3rd ed., section 6.4, evaluated by the modified Lentz
    method) converges fast for x < (a+1)/(a+b+2); above that the symmetry
    I_x(a, b) = 1 - I_{1-x}(b, a) is used.
    """
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


_TINY = 1e-300


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz), to full double precision."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        c, d = _lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), c, d)
        h *= d * c
        c, d = _lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), c, d)
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _lentz_step(term: float, c: float, d: float) -> tuple[float, float]:
    """One step of the modified Lentz method, keeping c and d away from zero."""
    d = 1.0 + term * d
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    c = 1.0 + term / c
    return (c if abs(c) > _TINY else _TINY), d
