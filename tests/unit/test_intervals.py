"""The intervals against scipy: Clopper-Pearson to 1e-9, and the exact mapping through the figures."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from scipy.special import betainc
from scipy.stats import binomtest

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import parse_confidence
from passk_tui.core.stats.rates.intervals import (
    CLOPPER_PEARSON,
    Interval,
    case_intervals,
    gate_verdict,
    regularized_beta,
)
from passk_tui.core.text.figure_text import interval_text, level_text


def _scipy_cp(c: int, n: int, level: float) -> tuple[float, float]:
    ci = binomtest(c, n).proportion_ci(level, method="exact")
    return ci.low, ci.high


def _cases() -> list[tuple[int, int, float]]:
    rng = random.Random(20261201)
    fixed = [(0, 1), (1, 1), (0, 5), (4, 5), (5, 5), (2, 5), (1, 3), (0, 40), (40, 40), (17, 40)]
    drawn = []
    for _ in range(300):
        n = rng.choice([2, 3, 7, 10, 20, 33, 50, 100, 250, 1000, 5000])
        drawn.append((rng.randint(0, n), n))
    levels = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]
    return [(c, n, lv) for c, n in fixed for lv in levels] + [
        (c, n, rng.choice(levels)) for c, n in drawn
    ]


@pytest.mark.parametrize(("c", "n", "level"), _cases())
def test_clopper_pearson_matches_scipy(c: int, n: int, level: float) -> None:
    ours = CLOPPER_PEARSON.rate(c, n, level)
    low, high = _scipy_cp(c, n, level)
    assert ours.low == pytest.approx(low, abs=1e-9)
    assert ours.high == pytest.approx(high, abs=1e-9)


def test_regularized_beta_matches_scipy() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        a, b, x = rng.uniform(0.5, 500), rng.uniform(0.5, 500), rng.random()
        assert regularized_beta(a, b, x) == pytest.approx(float(betainc(a, b, x)), abs=1e-12)


def test_figures_map_through_the_rate_interval() -> None:
    got = case_intervals(4, 5, 3, 0.95)
    low, high = _scipy_cp(4, 5, 0.95)
    assert got.pass_at_1 == got.rate
    assert got.pass_at_k.low == pytest.approx(1 - (1 - low) ** 3, abs=1e-9)
    assert got.pass_at_k.high == pytest.approx(1 - (1 - high) ** 3, abs=1e-9)
    assert got.pass_hat_k.low == pytest.approx(low**3, abs=1e-9)
    assert got.pass_hat_k.high == pytest.approx(high**3, abs=1e-9)
    assert got.method == "clopper-pearson"


def test_four_of_five_cannot_tell_a_low_pass_at_3_from_one() -> None:
    """The issue's 4/5 case: pass@3 shows 1.00, but its interval reaches well below the gate."""
    got = case_intervals(4, 5, 3, 0.95)
    assert got.pass_at_k.low < 0.8 < got.pass_at_k.high
    assert gate_verdict(got.pass_at_k, Fraction(4, 5)) == "undecided"


def test_no_attempts_is_the_whole_range() -> None:
    assert CLOPPER_PEARSON.rate(0, 0, 0.95) == Interval(0.0, 1.0)


def test_gate_verdict_sides() -> None:
    assert gate_verdict(Interval(0.8, 0.9), Fraction(4, 5)) == "pass"
    assert gate_verdict(Interval(0.1, 0.7999), Fraction(4, 5)) == "fail"
    assert gate_verdict(Interval(0.7, 0.9), Fraction(4, 5)) == "undecided"


def test_texts() -> None:
    assert interval_text(Interval(0.6316, 1.0)) == "0.63-1.00"
    assert level_text(0.95) == "95%"
    assert level_text(0.999) == "99.9%"
    assert parse_confidence(" 0.9 ") == 0.9
    for bad in ("0", "1", "1.5", "x", "-0.1", "nan"):
        with pytest.raises(InputError):
            parse_confidence(bad)


@pytest.mark.parametrize(("c", "n"), [(-1, 5), (6, 5)])
def test_bad_counts(c: int, n: int) -> None:
    with pytest.raises(ValueError):
        CLOPPER_PEARSON.rate(c, n, 0.95)
