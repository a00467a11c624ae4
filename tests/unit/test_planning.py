"""Planning's arithmetic against scipy: the binomial walk, the gate's thresholds, n for a chance."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy
import pytest
from scipy.stats import beta, binom, binomtest

from passk_tui.core.stats.gating.gate import read
from passk_tui.core.stats.plan.gate_chance import (
    all_pass_n,
    default_rates,
    more_attempts,
    plan_rows,
    right_verdict,
    verdict_chances,
)
from passk_tui.core.stats.plan.gate_thresholds import Thresholds, rate_line
from passk_tui.core.stats.rates.binomial import LowerTail, UpperTail, binomial_pmf
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE


@pytest.mark.parametrize("p", [0.0, 0.013, 0.3, 0.5, 0.9, 0.999, 1.0])
def test_walked_tails_match_scipy_binom(p: float) -> None:
    rng = random.Random(7)
    upper, lower = UpperTail(p), LowerTail(p)
    for n in range(1, 3001):
        upper.grow()
        lower.grow()
        centre = round(n * p)
        upper.move_to(min(n + 1, max(0, centre + rng.randint(-3, 3))))
        lower.move_to(min(n, max(-1, centre + rng.randint(-3, 3))))
        if n % 97 == 0 or n < 20:
            assert upper.value == pytest.approx(binom.sf(upper.c - 1, n, p), abs=1e-10)
            assert lower.value == pytest.approx(binom.cdf(lower.c, n, p), abs=1e-10)
    assert binomial_pmf(40, 13, 0.3) == pytest.approx(binom.pmf(13, 40, 0.3), rel=1e-12)


def _scipy_verdict(c: int, n: int, require: float, k: int, confidence: float) -> str:
    ci = binomtest(c, n).proportion_ci(confidence_level=confidence, method="exact")
    low, high = 1 - (1 - ci.low) ** k, 1 - (1 - ci.high) ** k
    return "pass" if low >= require else "fail" if high < require else "undecided"


def _scipy_verdicts(n: int, require: float, k: int, confidence: float) -> list[str]:
    """Every count's verdict at n, from scipy's beta quantiles (what binomtest's exact
    interval is made of), all counts at once."""
    c = numpy.arange(n + 1)
    tail = (1 - confidence) / 2
    low = numpy.where(c == 0, 0.0, beta.ppf(tail, numpy.maximum(c, 1), n - c + 1))
    high = numpy.where(c == n, 1.0, beta.ppf(1 - tail, c + 1, numpy.maximum(n - c, 1)))
    low, high = 1 - (1 - low) ** k, 1 - (1 - high) ** k
    return [
        "pass" if lo >= require else "fail" if hi < require else "undecided"
        for lo, hi in zip(low, high, strict=True)
    ]


def _verdict(thresholds: Thresholds, n: int, c: int) -> str:
    if c >= thresholds.pass_from[n]:
        return "pass"
    return "fail" if c <= thresholds.fail_to[n] else "undecided"


@pytest.mark.parametrize(
    ("require", "k", "confidence"),
    [("0.9", 1, 0.95), ("0.8", 3, 0.95), ("0.5", 1, 0.9), ("0.97", 2, 0.99), ("1", 1, 0.95)],
)
def test_exact_thresholds_give_scipys_clopper_pearson_verdicts(
    require: str, k: int, confidence: float
) -> None:
    """Every (c, n) up to n = 300 agrees with scipy; at each threshold's edges with
    binomtest's own exact interval and with the gate's verdict."""
    x = Fraction(require)
    thresholds = Thresholds(x, k, confidence, anytime=False)
    thresholds.extend(300)
    for n in range(k, 301):
        expected = _scipy_verdicts(n, float(x), k, confidence)
        assert [_verdict(thresholds, n, c) for c in range(n + 1)] == expected, n
        if n % 25 == 0:
            edges = {thresholds.pass_from[n] - 1, thresholds.pass_from[n]}
            edges |= {thresholds.fail_to[n], thresholds.fail_to[n] + 1}
            edges = {c for c in edges if 0 <= c <= n}
            for c in edges:
                assert _verdict(thresholds, n, c) == _scipy_verdict(c, n, float(x), k, confidence)
            figures = [CaseFigures(f"c{c}", n, c, n - c, 0, k) for c in sorted(edges)]
            gate = read(figures, x, confidence)
            assert [g.verdict for g in gate.cases] == [
                _verdict(thresholds, n, c) for c in sorted(edges)
            ]


def test_anytime_thresholds_give_the_sequences_verdicts() -> None:
    x, k, confidence = Fraction(8, 10), 3, 0.95
    line = rate_line(x, k)
    thresholds = Thresholds(x, k, confidence, anytime=True)
    thresholds.extend(150)
    for n in range(k, 151, 7):
        for c in range(n + 1):
            interval = CONFIDENCE_SEQUENCE.rate(c, n, confidence)
            expected = "pass" if interval.low >= line else "fail" if interval.high < line else "-"
            mine = (
                "pass"
                if c >= thresholds.pass_from[n]
                else "fail"
                if c <= thresholds.fail_to[n]
                else "-"
            )
            assert mine == expected, (n, c)


def test_the_product_example_exactly() -> None:
    """PRODUCT.md's plan: 36 for all-pass, 36 / 54 at 0.99, 16 / 29 at 0.7."""
    thresholds = Thresholds(Fraction(9, 10), 1, 0.95, anytime=False)
    assert all_pass_n(thresholds) == 36
    high, low = plan_rows([Fraction(99, 100), Fraction(7, 10)], thresholds)
    assert (high.n_for, high.verdict) == ({0.5: 36, 0.8: 54}, "pass")
    assert (low.n_for, low.verdict) == ({0.5: 16, 0.8: 29}, "fail")


def _scipy_chance(n: int, rate: float, right: str, x: float, k: int, level: float) -> float:
    """P(the gate says ``right`` at n), summed over c with scipy's pmf and scipy's interval."""
    verdicts = _scipy_verdicts(n, x, k, level)
    return float(sum(binom.pmf(c, n, rate) for c in range(n + 1) if verdicts[c] == right))


@pytest.mark.parametrize(
    ("require", "k", "rate", "level"),
    [("0.9", 1, "0.99", 0.95), ("0.9", 1, "0.7", 0.95), ("0.6", 3, "0.5", 0.9)],
)
def test_chances_and_first_n_match_a_scipy_sum(
    require: str, k: int, rate: str, level: float
) -> None:
    x, p = Fraction(require), Fraction(rate)
    right = right_verdict(p, k, x)
    assert right is not None
    thresholds = Thresholds(x, k, level, anytime=False)
    steps = list(verdict_chances(thresholds, float(p), 90))
    for n, chance_pass, chance_fail in steps[k - 1 :: 4]:
        mine = chance_pass if right == "pass" else chance_fail
        assert mine == pytest.approx(
            _scipy_chance(n, float(p), right, float(x), k, level), abs=1e-9
        )
    (row,) = plan_rows([p], thresholds)
    for target, n in row.n_for.items():
        assert n is not None
        chances = [_scipy_chance(m, float(p), right, float(x), k, level) for m in range(1, n + 1)]
        assert chances[-1] >= target and all(c < target for c in chances[:-1])


def test_the_chance_is_not_monotone_and_the_first_n_is_found() -> None:
    """The sawtooth is real: a bisection over n could skip the smallest n."""
    thresholds = Thresholds(Fraction(9, 10), 1, 0.95, anytime=False)
    chances = [p for _, p, _ in verdict_chances(thresholds, 0.99, 200)]
    assert any(b < a for a, b in itertools.pairwise(chances))


def test_never_at_the_line_and_none_past_ten_thousand() -> None:
    thresholds = Thresholds(Fraction(9, 10), 1, 0.95, anytime=False)
    (at, close) = plan_rows([Fraction(9, 10), Fraction(901, 1000)], thresholds)
    assert at.verdict is None and at.n_for == {0.5: None, 0.8: None}
    assert close.verdict == "pass" and close.n_for == {0.5: None, 0.8: None}
    assert all_pass_n(Thresholds(Fraction(1), 1, 0.95, anytime=False)) is None


def test_default_rates_sit_around_the_line() -> None:
    assert default_rates(Fraction(9, 10), 1) == [Fraction(n, 100) for n in (95, 92, 88, 85, 80)]
    # pass@3 >= 0.8 is a per-attempt rate of 0.415
    assert default_rates(Fraction(8, 10), 3) == [Fraction(n, 100) for n in (52, 47, 44, 40, 37, 32)]


def test_more_attempts_to_decide() -> None:
    """A case at 5 of 5 under pass@1 >= 0.9 needs passes only; one at the line never decides."""
    anytime = Thresholds(Fraction(9, 10), 1, 0.95, anytime=True)
    assert more_attempts(9, 10, anytime) is None
    five = more_attempts(5, 5, anytime)
    assert five is not None
    anytime.extend(5 + five)
    assert anytime.pass_from[5 + five] <= 5 + five < anytime.pass_from[4 + five] + 1
    # a case below the line: checked against the sequence itself, summed with scipy's pmf
    passed, n, x = 14, 20, Fraction(9, 10)
    line = rate_line(x, 1)
    more = more_attempts(passed, n, Thresholds(x, 1, 0.95, anytime=True))
    assert more is not None

    def decided(m: int) -> float:
        total = 0.0
        for j in range(m + 1):
            interval = CONFIDENCE_SEQUENCE.rate(passed + j, n + m, 0.95)
            if interval.low >= line or interval.high < line:
                total += binom.pmf(j, m, passed / n)
        return float(total)

    assert decided(more) >= 0.5
    assert all(decided(m) < 0.5 for m in range(1, more))


class _Replay:
    """A random.Random stand-in that replays given draws (so the policy sees the same case)."""

    def __init__(self, draws: list[float]) -> None:
        self.draws = iter(draws)

    def random(self) -> float:
        return next(self.draws)


def test_the_adaptive_simulation_stops_where_the_stop_rule_does() -> None:
    """The simulation's shortcut (decided at the first look whose interval alone decides)
    against the real rule (the running intersection, asked after every attempt)."""
    from passk_tui.core.stats.gating.stopping import GateRule
    from passk_tui.core.stats.plan.adaptive_plan import simulate_case

    x, k, level, first, cap = Fraction(8, 10), 3, 0.95, 5, 60
    rule = GateRule(x, k, level)
    thresholds = Thresholds(x, k, level, anytime=True)
    thresholds.extend(cap)
    rng = random.Random(11)
    for _ in range(300):
        rate = rng.choice([0.2, 0.35, 0.42, 0.5, 0.7, 0.95])
        draws = [rng.random() for _ in range(cap)]
        n, said = simulate_case(_Replay(draws), rate, thresholds, first, cap)
        order = bytes(int(d < rate) for d in draws)
        expected = (cap, "undecided")
        for m in range(first, cap + 1):
            reason = rule.reason(order[:m])
            if reason is not None:
                expected = (m, reason.kind.removeprefix("decided "))
                break
        assert (n, said) == expected, order
