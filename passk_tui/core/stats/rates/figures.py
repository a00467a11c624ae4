"""The per-case figures, computed exactly: pass@1, pass@k, pass^k, all passed, and their intervals.

Everything is a ``Fraction`` so the gate compares exact values (0.899 fails a
0.9 gate even though it shows as 0.90); only display rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb

from passk_tui.core.stats.rates.intervals import (
    CLOPPER_PEARSON,
    DEFAULT_CONFIDENCE,
    Interval,
    IntervalMethod,
    case_intervals,
)

# The three figures are cached by their counts (a Fraction is immutable, so shared safely):
# a table of 10,000 cases of 5 attempts holds six distinct counts, and each reading, redraw
# and export asks for every case's figures again.


@lru_cache(maxsize=65536)
def pass_at_1(n: int, c: int) -> Fraction:
    """The share of attempts that passed."""
    return Fraction(c, n) if n else Fraction(0)


@lru_cache(maxsize=65536)
def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """The unbiased estimator 1 - C(n-c, k) / C(n, k) over all n attempts.

    The chance that at least one of k attempts, drawn without replacement from
    the n made, passed. 1 when fewer than k attempts failed.
    """
    _check(n, c, k)
    if n - c < k:
        return Fraction(1)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


@lru_cache(maxsize=65536)
def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """pass^k = C(c, k) / C(n, k): the chance that k attempts drawn from the n all passed."""
    _check(n, c, k)
    return Fraction(comb(c, k), comb(n, k))


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


@dataclass(frozen=True, slots=True)
class FigureIntervals:
    """A case's intervals for the figures it defines; None where the figure itself is undefined."""

    pass_at_1: Interval | None
    pass_at_k: Interval | None
    pass_hat_k: Interval | None
    confidence: float
    method: str


@dataclass(frozen=True, slots=True)
class CaseFigures:
    """One case's counts and figures; a figure its attempts cannot define yet is None.

    ``planned`` is the attempts the case is meant to get (None: the ``n`` made
    are all there will be). pass@k and pass^k need at least k attempts, pass@1
    at least one, and "all passed" a finished case: a case with 1 of 1 passed
    mid-run has no pass@3, and is not "all passed" yet.
    """

    name: str
    n: int
    passed: int
    wrong: int
    errored: int
    k: int
    planned: int | None = None
    order: bytes | None = field(default=None, compare=False, repr=False)
    """The outcomes by attempt number (1 a pass, 0 not), which the anytime-valid interval
    reads (``core.stats.rates.sequences``); None where only the counts are known."""

    @property
    def defined(self) -> bool:
        """Whether pass@k and pass^k exist: at least k attempts are in."""
        return self.n >= self.k

    @property
    def finished(self) -> bool:
        """Whether every planned attempt is in."""
        return self.planned is None or self.n >= self.planned

    @property
    def pass_at_1(self) -> Fraction | None:
        return pass_at_1(self.n, self.passed) if self.n else None

    @property
    def pass_at_k(self) -> Fraction | None:
        """pass@k over the n attempts made; None with fewer than k."""
        return pass_at_k(self.n, self.passed, self.k) if self.defined else None

    @property
    def pass_hat_k(self) -> Fraction | None:
        """pass^k over the n attempts made; None with fewer than k."""
        return pass_hat_k(self.n, self.passed, self.k) if self.defined else None

    def every_k(self) -> list[tuple[int, Fraction, Fraction]]:
        """pass@k and pass^k at every k from 1 to n (none before any attempt)."""
        return [
            (k, pass_at_k(self.n, self.passed, k), pass_hat_k(self.n, self.passed, k))
            for k in range(1, self.n + 1)
        ]

    @property
    def all_passed(self) -> bool | None:
        """c == n once the case is finished; None before (or with no attempt at all)."""
        if not self.finished or self.n == 0:
            return None
        return self.passed == self.n

    def intervals(
        self, confidence: float = DEFAULT_CONFIDENCE, method: IntervalMethod = CLOPPER_PEARSON
    ) -> FigureIntervals:
        """The figures' intervals at ``confidence`` by ``method``; undefined figures get none."""
        whole = case_intervals(self.passed, self.n, self.k, confidence, method, self.order)
        return FigureIntervals(
            whole.pass_at_1 if self.n else None,
            whole.pass_at_k if self.defined else None,
            whole.pass_hat_k if self.defined else None,
            confidence,
            method.name,
        )
