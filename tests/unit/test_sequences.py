"""The anytime-valid interval against an independent scipy computation, and its coverage at every look."""

from __future__ import annotations

import random
from collections.abc import Callable
from math import exp, log

import numpy as np
import pytest
from scipy.stats import beta, binom

from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON, Interval, case_intervals
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE, log_mixture_ratio, narrowed
from tests.support.judging import _scipy_cs, _scipy_log_ratio, scipy_running


def _cases() -> list[tuple[int, int, float]]:
    rng = random.Random(20261201)
    fixed = [(0, 1), (1, 1), (0, 6), (6, 6), (0, 9), (3, 5), (1, 3), (0, 40), (40, 40), (17, 40)]
    levels = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]
    drawn = []
    for _ in range(200):
        n = rng.choice([2, 3, 7, 10, 20, 33, 50, 100, 250, 1000, 5000])
        drawn.append((rng.randint(0, n), n, rng.choice(levels)))
    return [(c, n, lv) for c, n in fixed for lv in levels] + drawn


@pytest.mark.parametrize(("c", "n", "level"), _cases())
def test_matches_an_independent_scipy_computation(c: int, n: int, level: float) -> None:
    ours = CONFIDENCE_SEQUENCE.rate(c, n, level)
    low, high = _scipy_cs(c, n, level)
    assert ours.low == pytest.approx(low, abs=1e-9)
    assert ours.high == pytest.approx(high, abs=1e-9)


@pytest.mark.parametrize(("c", "n"), [(0, 5), (5, 5), (2, 7), (13, 40), (38, 40)])
def test_is_exactly_the_set_a_grid_over_p_finds(c: int, n: int) -> None:
    """Brute force: every p on a fine grid is inside exactly when M_n(p) <= 1/(1-C)."""
    ours = CONFIDENCE_SEQUENCE.rate(c, n, 0.95)
    threshold = -log(0.05)
    for p in np.linspace(1e-6, 1 - 1e-6, 20001):
        if min(abs(p - ours.low), abs(p - ours.high)) < 1e-9:
            continue
        inside = _scipy_log_ratio(float(p), c, n) <= threshold
        assert inside == (ours.low <= p <= ours.high), p


@pytest.mark.parametrize("p", [0.03, 0.3, 0.5, 0.9])
@pytest.mark.parametrize("n", [0, 1, 4, 25])
def test_the_mixture_is_a_martingale_under_each_rate(p: float, n: int) -> None:
    """E[M_(n+1) | c passes of n] = M_n: the property Ville's inequality needs, for every c."""
    for c in range(n + 1):
        now = exp(log_mixture_ratio(p, c, n))
        after = p * exp(log_mixture_ratio(p, c + 1, n + 1)) + (1 - p) * exp(
            log_mixture_ratio(p, c, n + 1)
        )
        assert after == pytest.approx(now, rel=1e-10)
    mean = sum(binom.pmf(c, n, p) * exp(log_mixture_ratio(p, c, n)) for c in range(n + 1))
    assert mean == pytest.approx(1.0, rel=1e-10)


def test_impossible_rates_are_infinitely_unlikely() -> None:
    assert log_mixture_ratio(0.0, 1, 3) == float("inf")
    assert log_mixture_ratio(1.0, 2, 3) == float("inf")
    assert log_mixture_ratio(0.0, 0, 3) < 0


def test_no_attempts_is_the_whole_range_and_bad_counts_are_refused() -> None:
    assert CONFIDENCE_SEQUENCE.rate(0, 0, 0.95) == Interval(0.0, 1.0)
    with pytest.raises(ValueError, match="passed=4, n=3"):
        CONFIDENCE_SEQUENCE.rate(4, 3, 0.95)
    with pytest.raises(ValueError, match="confidence"):
        CONFIDENCE_SEQUENCE.rate(1, 3, 1.0)


def test_is_wider_than_the_fixed_n_interval_it_replaces() -> None:
    """Valid at every n costs width at each one: never narrower than Clopper-Pearson at the same level."""
    for n in (5, 20, 40):
        for c in range(n + 1):
            cs, cp = CONFIDENCE_SEQUENCE.rate(c, n, 0.95), CLOPPER_PEARSON.rate(c, n, 0.95)
            assert cs.low <= cp.low + 1e-12
            assert cs.high >= cp.high - 1e-12


def test_maps_through_the_figures_and_names_itself() -> None:
    got = case_intervals(12, 14, 3, 0.95, CONFIDENCE_SEQUENCE)
    low, high = _scipy_cs(12, 14, 0.95)
    assert got.pass_at_k.low == pytest.approx(1 - (1 - low) ** 3, abs=1e-9)
    assert got.pass_hat_k.high == pytest.approx(high**3, abs=1e-9)
    assert got.method == "beta-binomial-mixture"
    assert CONFIDENCE_SEQUENCE.label.startswith("anytime-valid")


def _orders() -> list[tuple[bytes, float]]:
    rng = random.Random(20261202)
    drawn = []
    for _ in range(24):
        p, n = rng.choice([0.05, 0.3, 0.5, 0.75, 0.95]), rng.choice([1, 2, 5, 12, 30, 60])
        drawn.append((bytes(rng.random() < p for _ in range(n)), rng.choice([0.8, 0.9, 0.95])))
    return [(b"\x01" * 6 + b"\x00", 0.95), (bytes([0, 0, 1] * 3), 0.9), *drawn]


@pytest.mark.parametrize(("order", "level"), _orders())
def test_with_the_order_it_is_the_running_intersection_over_every_prefix(
    order: bytes, level: float
) -> None:
    """Against the naive intersection of scipy's intervals; asked prefix by prefix, as the stop
    rule and the live table ask, and at once, as a resume does (the two ways agree)."""
    for m in range(1, len(order) + 1):
        prefix = order[:m]
        ours = CONFIDENCE_SEQUENCE.rate(prefix.count(1), m, level, prefix)
        low, high = scipy_running(prefix, level)
        assert (ours.low, ours.high) == (
            pytest.approx(low, abs=1e-9),
            pytest.approx(high, abs=1e-9),
        )
        own = CONFIDENCE_SEQUENCE.rate(prefix.count(1), m, level)
        assert own.low <= ours.low + 1e-12 and ours.high <= own.high + 1e-12


def test_a_case_decided_at_6_stays_decided_when_a_7th_attempt_fails() -> None:
    """6 of 6 puts pass@3 above 0.8; a 7th, failed, attempt puts the interval at 7 alone back
    across 0.8, but the running intersection only shrinks, so the verdict stands."""
    at_6 = case_intervals(6, 6, 3, 0.95, CONFIDENCE_SEQUENCE, b"\x01" * 6).pass_at_k
    alone_at_7 = case_intervals(6, 7, 3, 0.95, CONFIDENCE_SEQUENCE).pass_at_k
    at_7 = case_intervals(6, 7, 3, 0.95, CONFIDENCE_SEQUENCE, b"\x01" * 6 + b"\x00").pass_at_k
    assert at_6.low >= 0.8 > alone_at_7.low
    assert 0.8 <= at_6.low <= at_7.low and at_7.high <= at_6.high


def test_an_interval_that_would_empty_the_intersection_is_skipped() -> None:
    """40 passes then 400 failures: the interval at 440 alone is disjoint from the one at 40
    (possible only once some interval has missed p); the running one is kept, never empty."""
    order = b"\x01" * 40 + b"\x00" * 400
    before = CONFIDENCE_SEQUENCE.rate(40, 40, 0.95, order[:40])
    alone = CONFIDENCE_SEQUENCE.rate(40, 440, 0.95)
    assert alone.high < before.low  # disjoint: the edge is reached
    ours = CONFIDENCE_SEQUENCE.rate(40, 440, 0.95, order)
    low, high = scipy_running(order, 0.95)
    assert ours.low <= ours.high
    assert (ours.low, ours.high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))
    assert narrowed(before, alone) is before


def test_an_order_that_does_not_match_the_counts_is_refused() -> None:
    with pytest.raises(ValueError, match="order has 2 of 3"):
        CONFIDENCE_SEQUENCE.rate(1, 3, 0.95, b"\x01\x00\x01")


LOOKS = 100
PATHS = 2000
TRUE_RATES = (0.02, 0.2, 0.5, 0.7, 0.9, 0.99)


def _covered_at_every_look(low: np.ndarray, high: np.ndarray, p: float, seed: int) -> float:
    """The share of simulated paths whose interval holds p at each of n = 1..LOOKS."""
    rng = np.random.default_rng(seed)
    passes = np.cumsum(rng.random((PATHS, LOOKS)) < p, axis=1)
    looks = np.arange(1, LOOKS + 1)
    inside = (low[passes, looks] <= p) & (p <= high[passes, looks])
    return float(inside.all(axis=1).mean())


def _table(rate: Callable[[int, int], Interval]) -> tuple[np.ndarray, np.ndarray]:
    """low[c, n] and high[c, n] for every c <= n <= LOOKS."""
    low, high = np.zeros((LOOKS + 1, LOOKS + 1)), np.ones((LOOKS + 1, LOOKS + 1))
    for n in range(1, LOOKS + 1):
        for c in range(n + 1):
            interval = rate(c, n)
            low[c, n], high[c, n] = interval.low, interval.high
    return low, high


def _scipy_cp(c: int, n: int) -> Interval:
    """Clopper-Pearson at 95% from scipy's beta quantiles (fast enough for 5,000 intervals)."""
    low = 0.0 if c == 0 else float(beta.ppf(0.025, c, n - c + 1))
    return Interval(low, 1.0 if c == n else float(beta.ppf(0.975, c + 1, n - c)))


def test_covers_the_truth_at_every_look_where_the_fixed_n_interval_does_not() -> None:
    """Simulated Bernoulli paths of known rate: the sequence holds p at all 100 looks at once with rate >= C.

    The margin is three standard errors of the simulation's own share. The
    same paths judged by the Clopper-Pearson interval fall well short, which
    is why the adaptive mode cannot use it (and shows the test can fail).
    """
    cs_low, cs_high = _table(lambda c, n: CONFIDENCE_SEQUENCE.rate(c, n, 0.95))
    cp_low, cp_high = _table(_scipy_cp)
    margin = 3 * (0.05 * 0.95 / PATHS) ** 0.5
    fixed_n_worst = 1.0
    for seed, p in enumerate(TRUE_RATES):
        assert _covered_at_every_look(cs_low, cs_high, p, seed) >= 0.95 - margin, p
        fixed_n_worst = min(fixed_n_worst, _covered_at_every_look(cp_low, cp_high, p, seed))
    assert fixed_n_worst < 0.95 - margin
