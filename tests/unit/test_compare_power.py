"""The power of compare's per-case test, against scipy.stats.fisher_exact summed by brute force."""

from __future__ import annotations

from fractions import Fraction

import pytest
from scipy.stats import binom, fisher_exact

from passk_tui.core.stats.plan.compare_power import compare_plan, fisher_power


def _brute_power(n: int, rate_a: float, rate_b: float, alpha: float) -> float:
    """Every table of n attempts per version, scipy's two-sided p, the two binomial laws."""
    return float(
        sum(
            binom.pmf(a, n, rate_a) * binom.pmf(b, n, rate_b)
            for a in range(n + 1)
            for b in range(n + 1)
            if fisher_exact([[a, n - a], [b, n - b]]).pvalue < alpha
        )
    )


@pytest.mark.parametrize(
    ("n", "rate_a", "rate_b", "alpha"),
    [(10, 0.3, 0.7, 0.05), (17, 0.5, 0.9, 0.05), (25, 0.2, 0.25, 0.0025), (30, 0.9, 0.6, 0.01)],
)
def test_power_is_scipys_fisher_summed(n: int, rate_a: float, rate_b: float, alpha: float) -> None:
    assert fisher_power(n, rate_a, rate_b, alpha) == pytest.approx(
        _brute_power(n, rate_a, rate_b, alpha), abs=1e-12
    )


def test_the_smallest_n_for_each_power() -> None:
    """0.3 -> 0.7 in one case among 20 (Holm's first step, 0.05 / 20): 32 and 49 per version."""
    plan = compare_plan(Fraction(3, 10), Fraction(7, 10), 0.95, 20)
    assert plan.alpha == pytest.approx(0.0025) and plan.verdict == "improved"
    assert plan.n_for == {0.5: 32, 0.8: 49}
    for target, n in plan.n_for.items():
        assert n is not None
        assert _brute_power(n, 0.3, 0.7, plan.alpha) >= target
        assert all(_brute_power(m, 0.3, 0.7, plan.alpha) < target for m in range(n - 3, n))
    assert compare_plan(Fraction(1, 2), Fraction(1, 2), 0.95, 1).verdict == "never"
