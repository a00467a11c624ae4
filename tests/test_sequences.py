"""The anytime-valid interval against an independent scipy computation, and its coverage at every look."""

from __future__ import annotations

import random
from collections.abc import Callable
from math import exp, log, log1p

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import betaln
from scipy.stats import beta, binom

from passk_tui.core.intervals import CLOPPER_PEARSON, Interval, case_intervals
from passk_tui.core.sequences import CONFIDENCE_SEQUENCE, log_mixture_ratio

JEFFREYS = 0.5


def _scipy_log_ratio(p: float, c: int, n: int) -> float:
    """log M_n(p) written again from the definition, with scipy's log beta function."""
    log_lik = (c * log(p) if c else 0.0) + ((n - c) * log1p(-p) if n - c else 0.0)
    return float(betaln(JEFFREYS + c, JEFFREYS + n - c) - betaln(JEFFREYS, JEFFREYS)) - log_lik


def _scipy_cs(c: int, n: int, level: float) -> tuple[float, float]:
    """{p : M_n(p) <= 1/(1-level)} by Brent's method on each side of c/n."""
    threshold = -log(1.0 - level)

    def excess(p: float) -> float:
        return _scipy_log_ratio(p, c, n) - threshold

    centre = c / n
    low = 0.0 if c == 0 else brentq(excess, 1e-300, centre, xtol=1e-15, rtol=1e-15)
    high = 1.0 if c == n else brentq(excess, centre, 1.0 - 1e-16, xtol=1e-15, rtol=1e-15)
    return low, high


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
