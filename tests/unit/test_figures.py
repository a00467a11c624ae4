"""The estimators against the seed's numbers and against brute-force enumeration."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

from passk_tui.core.stats.rates.figures import CaseFigures, pass_at_1, pass_at_k, pass_hat_k
from passk_tui.core.text.figure_text import two_decimals


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


def test_fewer_than_k_attempts_define_no_pass_at_k() -> None:
    """The issue's live case: 1 of 1 passed is not pass@3 1.00, pass^3 1.00, all passed yes."""
    live = CaseFigures("a", n=1, passed=1, wrong=0, errored=0, k=3, planned=5)
    assert live.pass_at_k is None and live.pass_hat_k is None
    assert live.all_passed is None  # unfinished: 1 of 5 planned
    assert live.pass_at_1 == 1
    assert CaseFigures("b", 2, 1, 1, 0, 3).pass_at_k is None
    empty = CaseFigures("c", 0, 0, 0, 0, 3, planned=5)
    assert (empty.pass_at_1, empty.pass_at_k, empty.all_passed) == (None, None, None)
    assert [two_decimals(x) for x in (live.pass_at_1, live.pass_at_k)] == ["1.00", "-"]


def test_all_passed_needs_a_finished_case() -> None:
    assert CaseFigures("a", 5, 5, 0, 0, 3, planned=5).all_passed is True
    assert CaseFigures("a", 5, 5, 0, 0, 3).all_passed is True  # no plan: n is all there is
    assert CaseFigures("a", 4, 4, 0, 0, 3, planned=5).all_passed is None
    assert CaseFigures("a", 4, 4, 0, 0, 3, planned=5).pass_at_k == 1  # defined from k on
    assert CaseFigures("a", 5, 4, 1, 0, 3, planned=5).all_passed is False


def test_intervals_follow_what_is_defined() -> None:
    two = CaseFigures("a", 2, 2, 0, 0, 3, planned=5).intervals(0.9)
    assert two.pass_at_1 is not None and two.pass_at_k is None and two.pass_hat_k is None
    assert two.confidence == 0.9 and two.method == "clopper-pearson"
    none = CaseFigures("a", 0, 0, 0, 0, 3, planned=5).intervals()
    assert none.pass_at_1 is None
    five = CaseFigures("a", 5, 4, 1, 0, 3).intervals()
    assert five.pass_at_k is not None and five.pass_at_k.low < 0.8 < five.pass_at_k.high
