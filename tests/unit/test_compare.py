"""core/compare.py: Fisher's exact test against scipy, Holm against a reference, the verdicts."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import pytest
from scipy.stats import fisher_exact

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.compare_level import parse_exact_confidence
from passk_tui.core.render.compare_text import p_text, plain_comparison, regression_lines, signed
from passk_tui.core.stats.comparing.compare import (
    ChangeVerdict,
    NothingToCompare,
    Side,
    compare,
    fisher_exact_p,
    holm,
)
from passk_tui.core.stats.rates.figures import CaseFigures
from tests.support.compare import PRODUCT_SUITE, PRODUCT_TABLE


def scipy_p(a: int, b: int, c: int, d: int) -> float:
    return float(fisher_exact([[a, b], [c, d]], alternative="two-sided").pvalue)


def assert_matches_scipy(a: int, b: int, c: int, d: int) -> None:
    ours, theirs = float(fisher_exact_p(a, b, c, d)), scipy_p(a, b, c, d)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-300), [[a, b], [c, d]]


def test_fisher_matches_scipy_on_every_table_up_to_ten_per_row() -> None:
    for n1 in range(11):
        for n2 in range(11):
            for a in range(n1 + 1):
                for c in range(n2 + 1):
                    assert_matches_scipy(a, n1 - a, c, n2 - c)


def test_fisher_matches_scipy_on_random_tables_up_to_200() -> None:
    rng = random.Random(12)
    for _ in range(1500):
        n1, n2 = rng.randint(0, 200), rng.randint(0, 200)
        a, c = rng.randint(0, n1), rng.randint(0, n2)
        assert_matches_scipy(a, n1 - a, c, n2 - c)


@pytest.mark.parametrize(
    "table",
    [
        (0, 0, 0, 0),  # no attempts at all
        (0, 0, 3, 7),  # an empty row
        (5, 0, 7, 0),  # a column of zeros: every attempt passed
        (0, 10, 0, 10),  # every attempt failed in both
        (10, 0, 0, 10),  # full rows, opposite
        (200, 0, 0, 200),  # the smallest p at n = 200
        (200, 0, 199, 1),
        (0, 200, 1, 199),
        (1, 0, 0, 1),
    ],
)
def test_fisher_matches_scipy_on_edge_tables(table: tuple[int, int, int, int]) -> None:
    assert_matches_scipy(*table)


def test_fisher_counts_tables_exactly_as_likely_as_the_observed_one() -> None:
    """Symmetric margins tie the two tails exactly; scipy sums both, and so must we."""
    for n in (4, 10, 50, 200):
        for a in range(0, n + 1, max(1, n // 10)):
            assert_matches_scipy(a, n - a, n - a, a)
    # 3/10 against 7/10: P(3) == P(7) exactly, so p is both tails whole, 3 and 7 included.
    both_tails = sum(comb(10, x) * comb(10, 10 - x) for x in (0, 1, 2, 3, 7, 8, 9, 10))
    assert fisher_exact_p(3, 7, 7, 3) == Fraction(both_tails, comb(20, 10))


def test_fisher_is_exact_and_symmetric() -> None:
    # [[1, 0], [0, 1]]: both tables of the margins have P = 1/2, so p = 1.
    assert fisher_exact_p(1, 0, 0, 1) == 1
    # 10/10 against 0/10: two tables of 184756 equally extreme.
    assert fisher_exact_p(10, 0, 0, 10) == Fraction(2, 184756)
    assert fisher_exact_p(2, 8, 9, 1) == fisher_exact_p(9, 1, 2, 8) == fisher_exact_p(8, 2, 1, 9)
    with pytest.raises(ValueError):
        fisher_exact_p(-1, 2, 3, 4)


def reference_holm(p: list[Fraction]) -> list[Fraction]:
    """Holm by its definition, written apart: each p times the hypotheses left at its rank, the
    largest such value over every p not larger than it, capped at 1 (ties share a rank)."""
    m = len(p)
    out = []
    for pi in p:
        candidates = [(m - sum(1 for q in p if q < pj)) * pj for pj in p if pj <= pi]
        out.append(min(Fraction(1), max(candidates)))
    return out


def holm_rejects(p: list[Fraction], alpha: Fraction) -> list[bool]:
    """Holm's procedure as first stated: step down the sorted p while p_(i) <= alpha / (m - i)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    rejected = [False] * len(p)
    for rank, i in enumerate(order):
        if p[i] > alpha / (len(p) - rank):
            break
        rejected[i] = True
    return rejected


def test_holm_matches_the_reference_including_ties_and_the_cap() -> None:
    rng = random.Random(7)
    for _ in range(300):
        m = rng.randint(1, 12)
        # Few distinct values, so ties are common; some large enough to hit the cap.
        p = [Fraction(rng.randint(0, 40), 100) for _ in range(m)]
        adjusted = holm(p)
        assert adjusted == reference_holm(p)
        assert all(q <= 1 for q in adjusted)
        assert all(adjusted[i] <= adjusted[j] for i in range(m) for j in range(m) if p[i] <= p[j])
        for alpha in (Fraction(1, 20), Fraction(1, 10)):
            assert [q <= alpha for q in adjusted] == holm_rejects(p, alpha)


def test_holm_by_hand() -> None:
    assert holm([Fraction(1, 100), Fraction(4, 100), Fraction(3, 100)]) == [
        Fraction(3, 100),
        Fraction(6, 100),
        Fraction(6, 100),
    ]
    assert holm([Fraction(1, 2), Fraction(1, 2)]) == [Fraction(1), Fraction(1)]
    assert holm([]) == []


def case(name: str, n: int, passed: int, errored: int = 0, k: int = 3) -> CaseFigures:
    return CaseFigures(name, n, passed, n - passed - errored, errored, k)


def product_example() -> tuple[Side, Side]:
    a = Side(
        "A", 3, [case("arithmetic", 10, 2), case("json-shape", 10, 8, 1), case("summary", 10, 10)]
    )
    b = Side(
        "B", 3, [case("arithmetic", 10, 9), case("json-shape", 10, 7), case("summary", 10, 3, 6)]
    )
    return a, b


def test_the_product_example_and_its_errored_regression() -> None:
    comparison = compare(*product_example())
    lines = plain_comparison(comparison).splitlines(keepends=True)
    # PRODUCT.md's table (there the rule under `verdict` is one dash short of `regressed`; here,
    # as in every plain table, a rule is as wide as its column), the count line, the suite line,
    # then the note that the regression is mostly errored attempts.
    assert "".join(lines[:7]) == PRODUCT_TABLE + PRODUCT_SUITE
    assert len(lines) == 8
    assert lines[7].startswith(
        "summary: the drop is mostly errored attempts (A 0/10 errored, B 6/10)"
    )
    by_name = {c.name: c for c in comparison.cases}
    assert by_name["summary"].mostly_errored and not by_name["arithmetic"].mostly_errored
    assert float(by_name["arithmetic"].p_raw) == pytest.approx(scipy_p(2, 8, 9, 1), rel=1e-12)
    assert regression_lines(comparison) == [
        "regressed: summary: A 10/10 (pass@1 1.00), B 3/10 (pass@1 0.30), p 0.0093 < 0.05;"
        " mostly errored (B 6 errored, A 0)"
    ]


def test_a_regression_of_wrong_answers_is_not_marked_errored() -> None:
    a = Side("A", 3, [case("x", 10, 10)])
    b = Side("B", 3, [case("x", 10, 2, errored=3)])  # 8 more non-passes, 3 of them errored
    (only,) = compare(a, b).cases
    assert only.verdict is ChangeVerdict.REGRESSED and not only.mostly_errored
    b = Side("B", 3, [case("x", 10, 2, errored=5)])  # 5 of 8: more than half
    assert compare(a, b).cases[0].mostly_errored


def test_verdicts_follow_the_confidence() -> None:
    a = Side("A", 2, [case("x", 10, 10), case("y", 10, 5)])
    b = Side("B", 2, [case("x", 10, 5), case("y", 10, 5)])
    # 10/10 -> 5/10 alone: p = 0.0325; Holm across the two cases: 0.065.
    assert float(compare(a, b).cases[0].p) == pytest.approx(2 * scipy_p(10, 0, 5, 5))
    assert compare(a, b).cases[0].verdict is ChangeVerdict.UNCLEAR
    assert compare(a, b, Fraction(9, 10)).cases[0].verdict is ChangeVerdict.REGRESSED
    assert compare(b, a, Fraction(9, 10)).cases[0].verdict is ChangeVerdict.IMPROVED


def test_cases_in_only_one_are_listed_apart_and_not_adjusted_for() -> None:
    a = Side("A", 3, [case("gone", 10, 0), case("x", 10, 10), case("y", 10, 4)])
    b = Side("B", 3, [case("y", 10, 4), case("new", 10, 10), case("x", 10, 3)])
    comparison = compare(a, b)
    assert [c.name for c in comparison.cases] == ["x", "y"]  # A's order
    assert comparison.only_a == ("gone",) and comparison.only_b == ("new",)
    assert comparison.cases[0].p == 2 * comparison.cases[0].p_raw  # m = 2, not 4
    assert plain_comparison(comparison).endswith(
        "0 improved, 1 regressed, 1 unclear\n"
        "suite: B better on 0 cases, worse on 1, same on 1; "
        "odds ratio 0.26 (95% CI 0.06-0.94), p 0.03, regressed\n"
        "only in A: gone\nonly in B: new\n"
    )


def test_evaluations_that_cannot_be_compared() -> None:
    a = Side("A (ev_1)", 3, [case("x", 10, 10)])
    with pytest.raises(NothingToCompare, match=r"A \(ev_1\) and B \(ev_2\) share no case name"):
        compare(a, Side("B (ev_2)", 3, [case("y", 10, 10)]))
    with pytest.raises(NothingToCompare, match=r"A \(ev_1\) has k = 3 and B \(ev_2\) has k = 2"):
        compare(a, Side("B (ev_2)", 2, [case("x", 10, 10, k=2)]))
    assert NothingToCompare("x").exit_code == 2


def test_a_case_with_no_attempts_is_unclear() -> None:
    a = Side("A", 1, [case("x", 0, 0, k=1)])
    b = Side("B", 1, [case("x", 10, 0, k=1)])
    (only,) = compare(a, b).cases
    assert only.p == 1 and only.verdict is ChangeVerdict.UNCLEAR and only.change is None


def test_change_is_signed() -> None:
    assert [signed(Fraction(x)) for x in ("7/10", "-1/10", "0", "-1/1000")] == [
        "+0.70",
        "-0.10",
        "0.00",
        "-0.00",
    ]


@pytest.mark.parametrize("text", ["0", "1", "1.5", "-0.1", "x", "1/0"])
def test_confidence_must_lie_strictly_between_0_and_1(text: str) -> None:
    with pytest.raises(InputError):
        parse_exact_confidence(text)


def test_confidence_is_exact() -> None:
    assert parse_exact_confidence("0.95") == Fraction(19, 20)
    assert parse_exact_confidence(" 0.9 ") == Fraction(9, 10)


def test_unchanged_suites_are_seldom_called_regressed() -> None:
    """Holm's promise on A/A suites (50 cases, n = 10): at most 1-C have any case regressed.

    Without the adjustment about a fifth of such suites would (bench/compare.py).
    """
    rng = random.Random(3)
    n, alarms, suites = 10, 0, 200
    for _ in range(suites):
        rates = [rng.uniform(0.3, 1.0) for _ in range(50)]
        a, b = (
            Side(
                label,
                1,
                [
                    case(f"c{i}", n, sum(rng.random() < r for _ in range(n)), k=1)
                    for i, r in enumerate(rates)
                ],
            )
            for label in ("A", "B")
        )
        alarms += bool(compare(a, b).regressed)
    assert alarms / suites <= 0.05


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (Fraction(1), "1.00"),
        (Fraction(79, 100), "0.79"),
        (Fraction(93, 10000), "0.01"),  # PRODUCT.md's table: 0.0093 is 0.01
        (Fraction(5, 1000), "0.01"),
        (Fraction(4999, 1000000), "0.005"),
        (Fraction(43, 10000), "0.004"),
        (Fraction(1, 1000), "0.001"),
        (Fraction(71, 100000), "<0.001"),  # never 0.00 beside a raw 0.00071
        (Fraction(0), "<0.001"),
        (None, "-"),
    ],
)
def test_p_is_two_decimals_three_below_0_005_and_never_0(p: Fraction | None, shown: str) -> None:
    assert p_text(p) == shown
