"""How many attempts per version find a change: the power of compare's per-case Fisher test.

``passk-tui compare`` calls a case improved or regressed when Fisher's exact
test (two-sided, as ``scipy.stats.fisher_exact``) on its 2x2 table, adjusted by
Holm across the M compared cases, is below 1-C. For a change from rate pA to pB
with n attempts on each side, the chance of that verdict is summed exactly over
the two binomial laws of the passes a ~ Bin(n, pA), b ~ Bin(n, pB).

With equal rows the table's law given its column total s = a + b is the
hypergeometric H(n, n, s), symmetric about s/2, so the two-sided p of a table
is 2 P(X <= min(a, s-a)) (1 at the centre): a table is rejected when
min(a, s-a) <= j_s, the largest j with 2 P(X <= j) < alpha, one boundary per s.
Only the a and b within 10 standard deviations of their means are summed (what
lies outside weighs under 1e-20).

Among M cases, Holm's first step tests the smallest p at (1-C)/M and each later
one at a larger level; a single changed case among unchanged ones is found
exactly when its p is below (1-C)/M, so the plan reads that level: what one
case needs, whatever the others do.

The smallest n is found by reading every n up to 200; past 200 by bisection on
the exact power, in a bracket found from the normal approximation's n (which
only says where to look: every n compared is the exact power's). Fisher's power is not
monotone in n either (a discrete test's level moves with n), but past 200 its
dips are a fraction of a point (0.3 -> 0.4 at alpha 0.05, n 200-420: at most
0.0006; 0.5 -> 0.55 near n = 790: 0.004), so a bisection there may name an n
up to about 1% above the very first that reaches the target, never one that
does not reach it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, exp, floor, lgamma, sqrt
from statistics import NormalDist

from passk_tui.core.stats.plan.gate_chance import TARGETS, first_reaching
from passk_tui.core.stats.plan.gate_thresholds import MAX_PLANNED
from passk_tui.core.stats.rates.binomial import binomial_pmf

#: Every n up to this is read; past it, bisection (see the module docstring).
SCANNED = 200
_SPREAD = 10.0


def _window(n: int, p: float) -> range:
    """The counts of Bin(n, p) within ``_SPREAD`` standard deviations of the mean."""
    sd = sqrt(n * p * (1 - p))
    return range(max(0, int(n * p - _SPREAD * sd) - 1), min(n, int(n * p + _SPREAD * sd) + 1) + 1)


def _log_choose(n: int, j: int) -> float:
    return lgamma(n + 1) - lgamma(j + 1) - lgamma(n - j + 1)


def _boundary(n: int, s: int, alpha: float) -> int:
    """The largest j < s/2 with 2 P(X <= j) < alpha for X ~ H(n, n, s); -1 when none."""
    low = max(0, s - n)
    total = _log_choose(2 * n, s)
    sd = sqrt(s * (2 * n - s) / (4.0 * max(1, 2 * n - 1)))
    start = max(low, int(s / 2 - _SPREAD * 1.5 * sd) - 1)
    cdf, j = 0.0, start - 1
    while 2 * (j + 1) < s:
        mass = exp(_log_choose(n, j + 1) + _log_choose(n, s - j - 1) - total)
        if 2 * (cdf + mass) >= alpha:
            break
        cdf += mass
        j += 1
    return j if j >= low else -1


def fisher_power(n: int, rate_a: float, rate_b: float, alpha: float) -> float:
    """P(Fisher's two-sided p < ``alpha``) with n attempts per version at these rates."""
    pmf_a = {a: binomial_pmf(n, a, rate_a) for a in _window(n, rate_a)}
    pmf_b = {b: binomial_pmf(n, b, rate_b) for b in _window(n, rate_b)}
    bounds: dict[int, int] = {}
    power = 0.0
    for a, weight_a in pmf_a.items():
        for b, weight_b in pmf_b.items():
            s = a + b
            bound = bounds.get(s)
            if bound is None:
                bound = bounds[s] = _boundary(n, s, alpha)
            if min(a, b) <= bound:
                power += weight_a * weight_b
    return power


def n_for_power(
    rate_a: float, rate_b: float, alpha: float, targets: Sequence[float] = TARGETS
) -> dict[float, int | None]:
    """The n per version at which the power first reaches each target (None: not by 10,000)."""
    found = first_reaching(
        (fisher_power(n, rate_a, rate_b, alpha) for n in range(1, SCANNED + 1)), targets
    )
    for target in targets:
        if found[target] is None:
            found[target] = _bisect(rate_a, rate_b, alpha, target)
    return found


def _bisect(rate_a: float, rate_b: float, alpha: float, target: float) -> int | None:
    """Past ``SCANNED``: bracket around the normal approximation's n, then bisect (the exact
    power at each n read; the approximation only says where to look first)."""

    def power(n: int) -> float:
        return fisher_power(n, rate_a, rate_b, alpha)

    high = min(MAX_PLANNED, max(SCANNED + 1, _normal_n(rate_a, rate_b, alpha, target)))
    while power(high) < target:
        if high == MAX_PLANNED:
            return None
        high = min(MAX_PLANNED, ceil(high * 1.25))
    low = high
    while low > SCANNED:  # the power at SCANNED was read, and is below the target
        low = max(SCANNED, floor(low / 1.25))
        if low == SCANNED or power(low) < target:
            break
        high = low
    while high - low > 1:
        middle = (low + high) // 2
        if power(middle) >= target:
            high = middle
        else:
            low = middle
    return high


def _normal_n(rate_a: float, rate_b: float, alpha: float, target: float) -> int:
    """The textbook two-proportion n per group (normal approximation): where the search starts."""
    normal = NormalDist()
    mean = (rate_a + rate_b) / 2
    spread = normal.inv_cdf(1 - alpha / 2) * sqrt(2 * mean * (1 - mean))
    spread += normal.inv_cdf(target) * sqrt(rate_a * (1 - rate_a) + rate_b * (1 - rate_b))
    return ceil((spread / (rate_a - rate_b)) ** 2)


@dataclass(frozen=True, slots=True)
class ComparePlan:
    """A change from ``rate_a`` to ``rate_b``: n per version per case for each power."""

    rate_a: Fraction
    rate_b: Fraction
    alpha: float
    n_for: dict[float, int | None]

    @property
    def verdict(self) -> str:
        """What compare should say: ``improved``, ``regressed``, or ``never`` (no change)."""
        if self.rate_a == self.rate_b:
            return "never"
        return "improved" if self.rate_b > self.rate_a else "regressed"


def compare_plan(rate_a: Fraction, rate_b: Fraction, confidence: float, cases: int) -> ComparePlan:
    """The attempts per version that find this change in one case among ``cases``."""
    alpha = (1.0 - confidence) / cases
    found: dict[float, int | None] = dict.fromkeys(TARGETS)
    if rate_a != rate_b:
        found = n_for_power(float(rate_a), float(rate_b), alpha)
    return ComparePlan(rate_a, rate_b, alpha, found)
