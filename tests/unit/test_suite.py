"""core/stats/comparing/suite.py: the stratified suite comparison against statsmodels' StratifiedTable."""

from __future__ import annotations

import math
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import nchypergeom_fisher
from scipy.stats.contingency import odds_ratio
from statsmodels.stats.contingency_tables import StratifiedTable

from passk_tui.core.render.compare_text import p_text, regression_lines, suite_line
from passk_tui.core.stats.comparing.compare import ChangeVerdict, Side, compare
from passk_tui.core.stats.comparing.suite import SuiteComparison, compare_suite
from passk_tui.core.stats.comparing.suite_anytime import (
    ANYTIME_SUITE_METHOD,
    suite_anytime_p,
    suite_log_e_values,
)
from passk_tui.core.stats.rates.figures import CaseFigures
from tests.support.compare import SUITE_LINE, SUITE_PASSES_A, SUITE_PASSES_B

Counts = list[tuple[int, int, int, int]]
"""Per case: A's passes and n, then B's."""


def figures(counts: Counts) -> list[tuple[CaseFigures, CaseFigures]]:
    return [
        (CaseFigures(f"c{i}", na, pa, na - pa, 0, 1), CaseFigures(f"c{i}", nb, pb, nb - pb, 0, 1))
        for i, (pa, na, pb, nb) in enumerate(counts)
    ]


def ours(counts: Counts, confidence: Fraction = Fraction(95, 100)) -> SuiteComparison:
    return compare_suite(figures(counts), confidence, anytime=False)


def reference(counts: Counts, alpha: float = 0.05) -> tuple[float, float, float, float]:
    """statsmodels on the tables [[B passed, B not], [A passed, A not]]: OR, low, high, p."""
    tables = [np.array([[pb, nb - pb], [pa, na - pa]], dtype=float) for pa, na, pb, nb in counts]
    table = StratifiedTable(tables)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # its 0/0 in a zero sum is the point
        low, high = table.oddsratio_pooled_confint(alpha=alpha)
        return (
            float(table.oddsratio_pooled),
            float(low),
            float(high),
            float(table.test_null_odds().pvalue),
        )


def exact_reference(counts: Counts, alpha: float) -> tuple[float, float]:
    """The exact conditional interval where one side's tail is all there is: B's passes summed
    over the varying cases follow the convolution of Fisher's noncentral hypergeometric laws
    (scipy's), and the bound is the psi at which the observed sum's tail is alpha/2."""
    tables = [
        (nb + na, nb, pb + pa, pb)
        for pa, na, pb, nb in counts
        if 0 < pa + pb < na + nb and na and nb
    ]
    observed = sum(x for *_, x in tables)

    def tail(log_psi: float, upper: bool) -> float:
        law = np.array([1.0])
        for total, b_n, passes, _ in tables:
            support = np.arange(max(0, passes - (total - b_n)), min(b_n, passes) + 1)
            pmf = nchypergeom_fisher(total, b_n, passes, math.exp(log_psi)).pmf(support)
            law = np.convolve(law, np.concatenate([np.zeros(support[0]), pmf]))
        return float(law[observed:].sum() if upper else law[: observed + 1].sum())

    low_end = sum(max(0, passes - (total - b_n)) for total, b_n, passes, _ in tables)
    if observed == low_end:  # the odds ratio is 0: [0, U]
        return 0.0, math.exp(brentq(lambda t: tail(t, False) - alpha / 2, -30, 30, xtol=1e-13))
    return math.exp(brentq(lambda t: tail(t, True) - alpha / 2, -30, 30, xtol=1e-13)), math.inf


def random_counts(rng: random.Random, cases: int) -> Counts:
    counts = []
    for _ in range(cases):
        na, nb = rng.randint(1, 30), rng.randint(1, 30)
        # Rates near the ends as often as not: zero cells and tables with no variation.
        ra, rb = rng.choice([0.0, 1.0, rng.random(), rng.random()]), rng.random()
        pa = sum(rng.random() < ra for _ in range(na))
        pb = sum(rng.random() < rb for _ in range(nb))
        counts.append((pa, na, pb, nb))
    return counts


def test_odds_ratio_interval_and_p_equal_statsmodels_on_random_suites() -> None:
    rng = random.Random(20)
    checked = one_way = 0
    for _ in range(600):
        counts = random_counts(rng, rng.randint(1, 25))
        if sum(na + nb for _, na, _, nb in counts) < 2 or any(
            na + nb == 1 for _, na, _, nb in counts
        ):
            continue  # a table of one attempt: statsmodels divides 0 by 0 (below)
        for confidence in (Fraction(95, 100), Fraction(9, 10), Fraction(99, 100)):
            suite = ours(counts, confidence)
            odds, low, high, p = reference(counts, float(1 - confidence))
            if suite.odds_ratio is None:
                assert math.isnan(odds) and math.isnan(p) and suite.p is None
                continue
            assert suite.odds_ratio == pytest.approx(odds, rel=1e-12)
            assert suite.p == pytest.approx(p, rel=1e-9, abs=1e-15)
            if suite.odds_ratio in (0.0, math.inf):
                # statsmodels has no interval here (nan); the exact conditional one stands in.
                assert math.isnan(low) and math.isnan(high)
                exact = exact_reference(counts, float(1 - confidence))
                assert (suite.low, suite.high) == pytest.approx(exact, rel=1e-7)
                one_way += 1
            else:
                assert (suite.low, suite.high) == pytest.approx((low, high), rel=1e-12)
            checked += 1
    assert checked > 1000 and one_way > 50


def test_cases_with_no_variation_drop_out_as_in_statsmodels() -> None:
    base: Counts = [(7, 10, 4, 10), (5, 10, 2, 10)]
    quiet: Counts = [(10, 10, 10, 10), (0, 10, 0, 10), (0, 0, 3, 10), (4, 8, 0, 0)]
    for extra in quiet:
        with_it = ours([*base, extra])
        assert (with_it.odds_ratio, with_it.low, with_it.high, with_it.p) == pytest.approx(
            reference([*base, extra])
        )
        alone = ours(base)
        assert (with_it.odds_ratio, with_it.low, with_it.high, with_it.p) == (
            alone.odds_ratio,
            alone.low,
            alone.high,
            alone.p,
        )
    # A table of a single attempt: statsmodels' test gives nan (0/0); here it drops out too.
    single = ours([*base, (1, 1, 0, 0)])
    assert math.isnan(reference([*base, (1, 1, 0, 0)])[3])
    assert single.p == ours(base).p


def test_all_discordance_one_way_has_an_odds_ratio_of_0_or_inf_and_a_one_sided_interval() -> None:
    up: Counts = [(4, 10, 10, 10), (2, 10, 10, 10)]  # B passes every attempt
    suite = ours(up)
    odds, low, _, p = reference(up)
    assert suite.odds_ratio == odds == math.inf and math.isnan(low)
    assert (suite.low, suite.high) == pytest.approx(exact_reference(up, 0.05), rel=1e-9)
    assert suite.high == math.inf and 1 < suite.low < 20
    assert suite.p == pytest.approx(p, rel=1e-9) and suite.verdict is ChangeVerdict.IMPROVED
    down = ours([(pb, nb, pa, na) for pa, na, pb, nb in up])
    assert down.odds_ratio == 0.0 and down.verdict is ChangeVerdict.REGRESSED
    assert (down.low, down.high) == pytest.approx((0.0, 1 / suite.low), rel=1e-9)


def test_one_table_one_way_has_scipys_conditional_interval() -> None:
    for pa, na, pb, nb in [(4, 10, 10, 10), (0, 5, 3, 5), (1, 1, 0, 1), (20, 30, 30, 30)]:
        for confidence in (Fraction(95, 100), Fraction(8, 10)):
            suite = ours([(pa, na, pb, nb)], confidence)
            table = np.array([[pb, nb - pb], [pa, na - pa]])
            scipy = odds_ratio(table, kind="conditional").confidence_interval(float(confidence))
            assert (suite.low, suite.high) == pytest.approx((scipy.low, scipy.high), rel=1e-9)


def test_the_one_way_line_shows_0_and_inf_and_its_open_end() -> None:
    up = compare(*sides([4, 2, 20], [20, 20, 20]))
    assert suite_line(up) == (
        "suite: B better on 2 cases, worse on 0, same on 1; "
        "odds ratio inf (95% CI 38.13-inf), p <0.001, improved"
    )
    down = compare(*sides([20, 20, 20], [4, 2, 20]))
    assert suite_line(down) == (
        "suite: B better on 0 cases, worse on 2, same on 1; "
        "odds ratio 0 (95% CI 0-0.03), p <0.001, regressed"
    )
    assert regression_lines(down)[-1].startswith(
        "regressed: suite: B worse on 2 of 3 cases; odds ratio 0 (95% CI 0-0.03), p "
    )
    # With n chosen by looking the estimate stays, as a word, without an interval.
    looked = compare(*sides([4, 2, 20], [20, 20, 20], looked=True))
    assert "; odds ratio inf, p " in suite_line(looked)


def test_no_case_varies_then_nothing_is_tested() -> None:
    suite = ours([(10, 10, 10, 10), (0, 5, 0, 5)])
    assert (suite.odds_ratio, suite.low, suite.high, suite.p) == (None, None, None, None)
    assert (suite.better, suite.worse, suite.same) == (0, 0, 2)
    assert suite.verdict is ChangeVerdict.UNCLEAR


def interleaved(passed: int, n: int = 20) -> bytes:
    """``passed`` passes of ``n`` spread evenly over the attempt numbers."""
    return bytes((i + 1) * passed // n - i * passed // n for i in range(n))


def sides_orders() -> list[tuple[bytes, bytes]]:
    return [
        (interleaved(a), interleaved(b))
        for a, b in zip(SUITE_PASSES_A, SUITE_PASSES_B, strict=True)
    ]


def sides(a: list[int], b: list[int], *, looked: bool = False) -> tuple[Side, Side]:
    def side(label: str, passes: list[int]) -> Side:
        return Side(
            label,
            1,
            [
                CaseFigures(f"case-{i:02}", 20, c, 20 - c, 0, 1, order=interleaved(c))
                for i, c in enumerate(passes)
            ],
            looked=looked and label == "B",
        )

    return side("A", a), side("B", b)


def test_the_line_is_product_mds_to_the_character() -> None:
    comparison = compare(*sides(SUITE_PASSES_A, SUITE_PASSES_B))
    assert suite_line(comparison) == SUITE_LINE
    # The interval rounds outward: statsmodels' high end is 2.8243, shown as 2.83.
    assert comparison.suite.high == pytest.approx(2.8243, abs=1e-4)
    assert not comparison.regressed and not comparison.fails_on_regression
    # Swapped, the suite regressed while no single case did: --fail-on-regression fails on it.
    swapped = compare(*sides(SUITE_PASSES_B, SUITE_PASSES_A))
    assert suite_line(swapped) == (
        "suite: B better on 2 cases, worse on 7, same on 11; "
        "odds ratio 0.54 (95% CI 0.35-0.83), p 0.004, regressed"
    )
    assert not swapped.regressed and swapped.fails_on_regression
    assert regression_lines(swapped) == [
        "regressed: suite: B worse on 7 of 20 cases; "
        "odds ratio 0.54 (95% CI 0.35-0.83), p 0.0043 < 0.05"
    ]


def test_one_case_better_and_the_level_in_the_line() -> None:
    comparison = compare(*sides([5, 20], [9, 20]), Fraction(9, 10))
    assert suite_line(comparison).startswith("suite: B better on 1 case, worse on 0, same on 1; ")
    assert "(90% CI " in suite_line(comparison)


def test_with_n_chosen_by_looking_the_suite_is_tested_by_the_anytime_e_process() -> None:
    comparison = compare(*sides(SUITE_PASSES_A, SUITE_PASSES_B, looked=True))
    suite = comparison.suite
    assert suite.odds_ratio == pytest.approx(1.849, abs=1e-3)  # the estimate stays
    assert (suite.low, suite.high) == (None, None)  # its normal interval assumes a fixed n
    better, worse = suite_log_e_values(sides_orders())
    assert suite.p == suite_anytime_p(better, worse) and better > worse
    # 7 of 20 cases up by 1-6 of 20 attempts: CMH's p is 0.004; the e-process, which may be
    # looked at any time, asks for more.
    assert suite.p is not None and 0.004 < suite.p < 1
    assert suite.method == ANYTIME_SUITE_METHOD
    assert suite_line(comparison) == (
        "suite: B better on 7 cases, worse on 2, same on 11; odds ratio 1.85, "
        f"p {p_text(suite.p)}, {suite.verdict}"
    )
