"""The estimators against the seed's numbers and against brute-force enumeration."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

from passk_tui.core.figures import CaseFigures, pass_at_1, pass_at_k, pass_hat_k, two_decimals


def test_seed_numbers() -> None:
    assert pass_at_k(5, 2, 2) == Fraction(7, 10)
    assert two_decimals(pass_at_k(5, 2, 2)) == "0.70"
    for n in range(1, 11):
        for c in range(n + 1):
            assert pass_at_k(n, c, 1) == Fraction(c, n) == pass_at_1(n, c)
    assert pass_at_k(5, 3, 3) == 1  # n - c = 2 < k = 3
    assert pass_at_k(5, 0, 3) == 0


@pytest.mark.parametrize("n", range(1, 11))
def test_against_every_k_subset(n: int) -> None:
    """pass@k is the share of k-subsets with a pass; pass^k the share with only passes."""
    for c in range(n + 1):
        attempts = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(combinations(attempts, k))
            any_pass = Fraction(sum(any(s) for s in subsets), len(subsets))
            all_pass = Fraction(sum(all(s) for s in subsets), len(subsets))
            assert pass_at_k(n, c, k) == any_pass, (n, c, k)
            assert pass_hat_k(n, c, k) == all_pass, (n, c, k)


def test_exact_beyond_float() -> None:
    """Large n stays exact: no float cancellation near 1."""
    value = pass_at_k(1000, 1, 999)
    assert value == Fraction(999, 1000)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, 2, 0), (5, 2, 6), (3, -1, 1)])
def test_rejects_impossible_counts(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_case_figures_live_and_all_passed() -> None:
    f = CaseFigures("a", n=2, passed=1, wrong=1, errored=0, k=3)
    assert f.pass_at_k == pass_at_k(2, 1, 2)  # fewer than k attempts in: over those made
    assert not f.all_passed
    assert CaseFigures("b", 5, 5, 0, 0, 3).all_passed
    assert not CaseFigures("c", 0, 0, 0, 0, 3).all_passed
    assert CaseFigures("c", 0, 0, 0, 0, 3).pass_at_k == 0
