"""The whole suite compared at once: the cases' 2x2 tables stratified by case.

Per-case tests have little power at few attempts, and a change that lifts every
case a little shows up in none of them. Pooling the cases' tables while keeping
each case its own stratum asks one question of them all: do B's odds of
passing differ from A's, case by case?

- The test (n fixed in advance on both sides) is Cochran-Mantel-Haenszel's
  (W. G. Cochran, Biometrics 10, 1954; N. Mantel and W. Haenszel, J. Natl.
  Cancer Inst. 22, 1959), without continuity correction: the sum over cases of
  B's passes minus their expectation given the table's margins, squared, over
  the sum of their hypergeometric variances, against chi-square with one
  degree of freedom. Its null is "no case changed" (every case's A and B rates
  equal); two-sided, the direction read from the common odds ratio.
- The common odds ratio is Mantel-Haenszel's, sum(a d / n) / sum(b c / n) over
  the tables [[B passed, B not], [A passed, A not]] (above 1: B's odds are
  higher), with the Robins-Breslow-Greenland variance of its log (Biometrics
  42, 1986) and a normal interval at level C on the log scale.

These are the figures ``statsmodels.stats.contingency_tables.StratifiedTable``
computes (``test_null_odds()``, ``oddsratio_pooled``,
``oddsratio_pooled_confint``), which the tests check them against. A case whose
table has no variation (a side with no attempt, or every attempt of both
passing, or none) adds nothing to any sum and drops out, as it does there; it is
dropped before the sums, so a case with a single attempt in all, where
statsmodels divides 0 by 0, drops out too. When one side's discordant products
are all 0 (every case's discordance one way) the odds ratio is 0 or infinite, its
log has no normal interval (statsmodels gives nan), and the interval is one-sided
and exact instead: [0, U] or [L, inf], the conditional bound of ``odds_bound``.

When either side's n was chosen by looking, neither the chi-square reference
nor the normal interval is valid: the suite's p and direction come instead from
the directional e-process of ``suite_anytime`` (the same null), and the odds
ratio is shown as an estimate, without an interval. (Why not the product of the
cases' own e-values from ``anytime_compare``: it is not directional, B
improving one case and regressing another rejects it, and it loses a factor of
about 20 for every case that always passes on both sides, most of a suite.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import erfc, exp, inf, log, sqrt
from statistics import NormalDist

from passk_tui.core.stats.comparing.odds_bound import Table, lower_bound, upper_bound
from passk_tui.core.stats.comparing.suite_anytime import (
    ANYTIME_SUITE_METHOD,
    suite_anytime_p,
    suite_log_e_values,
)
from passk_tui.core.stats.comparing.verdicts import ChangeVerdict
from passk_tui.core.stats.rates.figures import CaseFigures

CMH_METHOD = (
    "Cochran-Mantel-Haenszel test over the cases' 2x2 tables, "
    "Mantel-Haenszel common odds ratio with the Robins-Breslow-Greenland interval "
    "(exact conditional, one-sided, when every case's discordance goes one way)"
)


@dataclass(frozen=True, slots=True)
class SuiteComparison:
    """The suite line: the cases' directions, the common odds ratio, p and the suite verdict."""

    better: int
    """Cases whose pass@1 is higher in B."""
    worse: int
    same: int
    """Cases whose pass@1 is equal in both (or undefined on a side: no attempt there)."""
    odds_ratio: float | None
    """B's odds of passing over A's, common to the cases; None when no case's table varies
    (0 or inf when every discordant product on one side is 0)."""
    low: float | None
    high: float | None
    """The odds ratio's interval at level C (0 to a bound, or a bound to inf, when the odds
    ratio is 0 or inf); None where there is none."""
    p: float | None
    """None when no case's table varies: there is nothing to test."""
    verdict: ChangeVerdict
    method: str


def compare_suite(
    pairs: Sequence[tuple[CaseFigures, CaseFigures]], confidence: Fraction, *, anytime: bool
) -> SuiteComparison:
    """The suite over the shared cases' (A, B) figures; ``anytime`` when a side's n was looked at."""
    directions = [_direction(a, b) for a, b in pairs]
    tables = [t for t in (_table(a, b) for a, b in pairs) if _varies(t)]
    odds_ratio, log_se = _mantel_haenszel(tables)
    direction: float | None = odds_ratio
    p: float | None
    if anytime:
        better, worse = suite_log_e_values([_orders(a, b) for a, b in pairs])
        p, low, high = suite_anytime_p(better, worse), None, None
        # The direction is the larger product's: the one whose bets paid.
        direction = inf if better > worse else 0.0 if worse > better else 1.0
        method = ANYTIME_SUITE_METHOD
    else:
        p = _cmh_p(tables)
        low, high = _interval(odds_ratio, log_se, tables, confidence)
        method = CMH_METHOD
    return SuiteComparison(
        better=directions.count(1),
        worse=directions.count(-1),
        same=directions.count(0),
        odds_ratio=odds_ratio,
        low=low,
        high=high,
        p=p,
        verdict=_verdict(direction, p, 1 - confidence),
        method=method,
    )


def _table(a: CaseFigures, b: CaseFigures) -> Table:
    """[[B passed, B not], [A passed, A not]]: an odds ratio above 1 favours B."""
    return b.passed, b.n - b.passed, a.passed, a.n - a.passed


def _varies(table: Table) -> bool:
    """Both rows and both columns non-empty: a table any of whose margins is 0 tests nothing."""
    a, b, c, d = table
    return min(a + b, c + d, a + c, b + d) > 0


def _orders(a: CaseFigures, b: CaseFigures) -> tuple[bytes, bytes]:
    """Both sides' outcomes by attempt number; a side known only by its counts has none (the
    order of its outcomes cannot be made up afterwards without looking at them)."""
    return a.order or b"", b.order or b""


def _direction(a: CaseFigures, b: CaseFigures) -> int:
    if a.n == 0 or b.n == 0:
        return 0
    return (b.passed * a.n > a.passed * b.n) - (b.passed * a.n < a.passed * b.n)


def _cmh_p(tables: Sequence[Table]) -> float | None:
    """Cochran-Mantel-Haenszel, no continuity correction: chi-square(1) survival, exactly
    ``erfc(sqrt(x / 2))``."""
    if not tables:
        return None
    deviation = variance = 0.0
    for a, b, c, d in tables:
        n = a + b + c + d
        deviation += a - (a + b) * (a + c) / n
        variance += (a + b) * (c + d) * (a + c) * (b + d) / (n * n * (n - 1))
    return erfc(sqrt(deviation * deviation / variance / 2.0))


def _mantel_haenszel(tables: Sequence[Table]) -> tuple[float | None, float | None]:
    """The common odds ratio and the Robins-Breslow-Greenland standard error of its log."""
    r = s = pr = ps_qr = qs = 0.0
    for a, b, c, d in tables:
        n = a + b + c + d
        ri, si = a * d / n, b * c / n
        pi, qi = (a + d) / n, (b + c) / n
        r, s = r + ri, s + si
        pr, ps_qr, qs = pr + pi * ri, ps_qr + pi * si + qi * ri, qs + qi * si
    if r == 0 and s == 0:
        return None, None
    if r == 0 or s == 0:
        return (0.0 if r == 0 else inf), None
    variance = (pr / (r * r) + ps_qr / (r * s) + qs / (s * s)) / 2.0
    return r / s, sqrt(variance)


def _interval(
    odds_ratio: float | None,
    log_se: float | None,
    tables: Sequence[Table],
    confidence: Fraction,
) -> tuple[float | None, float | None]:
    """exp(log OR -/+ z se), z the normal quantile at 1 - (1-C)/2; at an odds ratio of 0 or
    inf, the exact bound leaving (1-C)/2 on its one side."""
    tail = float(1 - confidence) / 2.0
    if odds_ratio == inf:
        return lower_bound(tables, tail), inf
    if odds_ratio == 0:
        return 0.0, upper_bound(tables, tail)
    if odds_ratio is None or log_se is None:
        return None, None
    z = NormalDist().inv_cdf(1.0 - tail)
    centre = log(odds_ratio)
    return exp(centre - z * log_se), exp(centre + z * log_se)


def _verdict(direction: float | None, p: float | None, alpha: Fraction) -> ChangeVerdict:
    """Improved or regressed when p < 1-C, the way ``direction`` (an odds ratio) points."""
    if p is None or direction is None or direction == 1 or not Fraction(p) < alpha:
        return ChangeVerdict.UNCLEAR
    return ChangeVerdict.IMPROVED if direction > 1 else ChangeVerdict.REGRESSED
