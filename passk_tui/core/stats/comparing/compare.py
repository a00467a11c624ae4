"""Did the change help? Two evaluations compared per case (a test, Holm, a verdict) and as a suite.

Each case shared by the baseline (A) and the candidate (B) gives a 2x2 table,
passes and non-passes of A and of B. Its two-sided p-value is Fisher's exact
test (Fisher 1935; the two-sided rule of summing every table no more likely
than the observed one, as ``scipy.stats.fisher_exact`` does), computed here
with exact integers. The p-values of all compared cases are adjusted together
by Holm's step-down method (Holm 1979, "A simple sequentially rejective
multiple test procedure"), which keeps the chance of calling any unchanged case
improved or regressed under 1-C. Everything is a ``Fraction`` until shown, so
a verdict never turns on rounding.

Fisher's test is valid only when both sides' n were fixed in advance. When
either side's n was chosen by looking (``interval_choice.n_chosen_by_looking``: an
adaptive or extended evaluation), every case is tested instead by the
anytime-valid e-value test of ``anytime_compare``, Holm-adjusted the same way,
and the comparison names the method it used. The whole suite's line (the
cases' tables stratified by case) is ``suite.compare_suite``.

This module only computes; the faces and the exports format a ``Comparison``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.core.stats.comparing.anytime_compare import ANYTIME_METHOD, anytime_p
from passk_tui.core.stats.comparing.suite import SuiteComparison, compare_suite
from passk_tui.core.stats.comparing.verdicts import ChangeVerdict as ChangeVerdict
from passk_tui.core.stats.rates.figures import CaseFigures

#: How a comparison names its per-case adjustment, in its ``method``.
PAIR_HOLM = "Holm-adjusted across the compared cases"
#: The same when a matrix adjusted every case of every pair together (``core.stats.comparing.matrix``).
MATRIX_HOLM = "Holm-adjusted over every case of every pair"
#: How the comparison names Fisher's test in its output and in the .json ``method``.
FISHER_METHOD = f"Fisher's exact test, two-sided, {PAIR_HOLM}"

# scipy counts a table as "no more likely" than the observed one when its
# probability is at most the observed one's times (1 + 1e-14), so that exact
# ties computed in floating point are not lost to rounding. Same rule, exactly.
_TIE_TOLERANCE = Fraction(1, 10**14)


class NothingToCompare(InputError):
    """Two evaluations that cannot be compared: no case name in common, or different k (exit 2)."""


@lru_cache(maxsize=65536)
def fisher_exact_p(a: int, b: int, c: int, d: int) -> Fraction:
    """Two-sided p of Fisher's exact test on the table [[a, b], [c, d]], as scipy computes it.

    With the margins fixed, the top-left cell x follows the hypergeometric law
    P(x) = C(r1, x) C(r2, s1 - x) / C(N, s1). The p-value sums P over every x
    with P(x) <= P(a) * (1 + 1e-14). A row or column of zeros gives 1.
    """
    if min(a, b, c, d) < 0:
        raise ValueError(f"a 2x2 table has no negative cells: {[[a, b], [c, d]]}")
    row1, row2, col1 = a + b, c + d, a + c
    total = row1 + row2

    def weight(x: int) -> int:
        return comb(row1, x) * comb(row2, col1 - x)

    observed = weight(a)
    bound = observed * (1 + _TIE_TOLERANCE)
    tail = sum(
        w
        for w in (weight(x) for x in range(max(0, col1 - row2), min(row1, col1) + 1))
        if w <= bound
    )
    return min(Fraction(tail, comb(total, col1)), Fraction(1))


def holm(p_values: Sequence[Fraction]) -> list[Fraction]:
    """Holm's step-down adjusted p-values, in the order given: monotone in p, capped at 1.

    The i-th smallest of m p-values is multiplied by m - i + 1 (i from 1), and each
    adjusted value is the largest of those up to it, so a smaller p never gets a
    larger adjusted p. Adjusted p < alpha exactly when Holm's procedure rejects.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [Fraction(0)] * m
    running = Fraction(0)
    for rank, i in enumerate(order):
        running = max(running, min(Fraction(1), (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True, slots=True)
class Side:
    """One evaluation as the comparison sees it: a label for messages, its k, its cases' counts."""

    label: str
    k: int
    figures: Sequence[CaseFigures]
    looked: bool = False
    """Its n was chosen by looking (adaptive or extended): Fisher's fixed-n test is not valid."""


@dataclass(frozen=True, slots=True)
class CaseComparison:
    """One case in both evaluations: A's and B's counts, the raw and Holm-adjusted p, the verdict."""

    name: str
    a: CaseFigures
    b: CaseFigures
    p_raw: Fraction
    """The comparison's test on this case alone (Fisher's, or the anytime-valid one)."""
    p: Fraction
    """``p_raw`` adjusted by Holm across every compared case: what the verdict reads."""
    verdict: ChangeVerdict

    @property
    def change(self) -> Fraction | None:
        """B's pass@1 minus A's; None while either side has no attempt (its pass@1 is undefined)."""
        a, b = self.a.pass_at_1, self.b.pass_at_1
        return None if a is None or b is None else b - a

    @property
    def errored_change(self) -> Fraction:
        """B's errored share minus A's: the part of a drop that the platform, not the agent, made."""
        return _share(self.b.errored, self.b.n) - _share(self.a.errored, self.a.n)

    @property
    def mostly_errored(self) -> bool:
        """A regression of which more than half the drop in pass@1 is extra errored attempts."""
        change = self.change
        return (
            self.verdict is ChangeVerdict.REGRESSED
            and change is not None
            and 2 * self.errored_change > -change
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two evaluations compared per case; cases in only one are listed apart, never tested."""

    a: Side
    b: Side
    confidence: Fraction
    cases: tuple[CaseComparison, ...]
    """The shared cases, in A's order."""
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    suite: SuiteComparison
    """All the shared cases at once, stratified by case."""
    in_matrix: bool = False
    """Its p's are a matrix's: Holm over every case of every pair, not over its own cases."""

    @property
    def anytime(self) -> bool:
        """Either side's n was chosen by looking, so every test is the anytime-valid one."""
        return self.a.looked or self.b.looked

    @property
    def method(self) -> str:
        """The per-case test, as the output and the .json ``method`` name it."""
        method = ANYTIME_METHOD if self.anytime else FISHER_METHOD
        return method.replace(PAIR_HOLM, MATRIX_HOLM) if self.in_matrix else method

    @property
    def alpha(self) -> Fraction:
        """1 - C: an adjusted p below it is a verdict."""
        return 1 - self.confidence

    def with_verdict(self, verdict: ChangeVerdict) -> list[CaseComparison]:
        return [c for c in self.cases if c.verdict is verdict]

    @property
    def regressed(self) -> list[CaseComparison]:
        return self.with_verdict(ChangeVerdict.REGRESSED)

    @property
    def fails_on_regression(self) -> bool:
        """What --fail-on-regression fails on: a case regressed, or the suite did."""
        return bool(self.regressed) or self.suite.verdict is ChangeVerdict.REGRESSED


def compare(a: Side, b: Side, confidence: Fraction = DEFAULT_CONFIDENCE) -> Comparison:
    """Match A's and B's cases by name, test each shared one, adjust by Holm, give verdicts.

    NothingToCompare when the two share no case name or measured a different k.
    """
    if a.k != b.k:
        raise NothingToCompare(
            f"{a.label} has k = {a.k} and {b.label} has k = {b.k}: "
            "compare evaluations made with the same k"
        )
    in_b = {f.name: f for f in b.figures}
    names_a = {f.name for f in a.figures}
    pairs = [(fa, in_b[fa.name]) for fa in a.figures if fa.name in in_b]
    if not pairs:
        raise NothingToCompare(f"{a.label} and {b.label} share no case name: nothing to compare")
    anytime = a.looked or b.looked
    raw = [_case_p(fa, fb, anytime=anytime) for fa, fb in pairs]
    alpha = 1 - confidence
    cases = tuple(
        CaseComparison(fa.name, fa, fb, p_raw, p, case_verdict(fa, fb, p, alpha))
        for (fa, fb), p_raw, p in zip(pairs, raw, holm(raw), strict=True)
    )
    return Comparison(
        a=a,
        b=b,
        confidence=confidence,
        cases=cases,
        only_a=tuple(f.name for f in a.figures if f.name not in in_b),
        only_b=tuple(f.name for f in b.figures if f.name not in names_a),
        suite=compare_suite(pairs, confidence, anytime=anytime),
    )


def _case_p(a: CaseFigures, b: CaseFigures, *, anytime: bool) -> Fraction:
    """The case's own p: Fisher's exact, or the anytime-valid one (exactly the float it is)."""
    if anytime:
        return Fraction(anytime_p(a.passed, a.n, b.passed, b.n))
    return fisher_exact_p(*_table(a, b))


def _table(a: CaseFigures, b: CaseFigures) -> tuple[int, int, int, int]:
    """Passes and non-passes of A, then of B."""
    return a.passed, a.n - a.passed, b.passed, b.n - b.passed


def case_verdict(a: CaseFigures, b: CaseFigures, p: Fraction, alpha: Fraction) -> ChangeVerdict:
    """``improved`` or ``regressed`` when the adjusted ``p`` is below ``alpha``, else ``unclear``."""
    if p >= alpha:
        return ChangeVerdict.UNCLEAR
    # p below 1 means both sides have attempts, so both pass@1 are defined.
    return ChangeVerdict.IMPROVED if b.passed * a.n > a.passed * b.n else ChangeVerdict.REGRESSED


def _share(count: int, n: int) -> Fraction:
    return Fraction(count, n) if n else Fraction(0)
