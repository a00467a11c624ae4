"""core/stats/comparing/anytime_compare.py: the e-value test against scipy, and its promise under looking."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from scipy.optimize import minimize_scalar
from scipy.special import betaln, xlog1py, xlogy

from passk_tui.core.render.compare_text import method_lines
from passk_tui.core.stats.comparing.anytime_compare import ANYTIME_METHOD, anytime_p, log_e_value
from passk_tui.core.stats.comparing.compare import (
    FISHER_METHOD,
    Side,
    compare,
    fisher_exact_p,
    holm,
)
from passk_tui.core.stats.rates.figures import CaseFigures


def log_marginal(c: int, n: int) -> float:
    """The Jeffreys beta-binomial mixture of one ordered sequence with c passes in n."""
    return float(betaln(0.5 + c, 0.5 + n - c) - betaln(0.5, 0.5))


def log_likelihood(p: float, c: int, n: int) -> float:
    return float(xlogy(c, p) + xlog1py(n - c, -p))


def reference_log_e(ca: int, na: int, cb: int, nb: int) -> float:
    """inf over p of the two mixture ratios' product, found numerically by scipy."""
    marginals = log_marginal(ca, na) + log_marginal(cb, nb)
    if ca + cb in (0, na + nb):  # the pooled likelihood is 1 at p = 0 or 1
        return marginals
    best = minimize_scalar(
        lambda p: -(log_likelihood(p, ca, na) + log_likelihood(p, cb, nb)),
        bounds=(1e-12, 1 - 1e-12),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return marginals + float(best.fun)


def test_the_e_value_equals_scipys_numerical_infimum() -> None:
    rng = random.Random(5)
    for _ in range(400):
        na, nb = rng.randint(1, 200), rng.randint(1, 200)
        ca, cb = rng.randint(0, na), rng.randint(0, nb)
        assert log_e_value(ca, na, cb, nb) == pytest.approx(
            reference_log_e(ca, na, cb, nb), rel=1e-7, abs=1e-7
        ), (ca, na, cb, nb)


def test_p_is_one_over_e_capped_at_one() -> None:
    # 0/20 against 20/20: E = m(0, 20) m(20, 20) / (1/2)^40.
    log_e = 2 * log_marginal(20, 20) + 40 * math.log(2)
    assert anytime_p(0, 20, 20, 20) == pytest.approx(math.exp(-log_e), rel=1e-12)
    assert anytime_p(5, 10, 5, 10) == 1.0  # no evidence: E below 1
    assert anytime_p(0, 0, 0, 0) == 1.0 and anytime_p(0, 0, 7, 10) == 1.0


def test_a_looked_at_side_switches_every_case_to_the_anytime_test_holm_adjusted() -> None:
    a = Side("A", 1, [CaseFigures("x", 20, 2, 18, 0, 1), CaseFigures("y", 20, 10, 10, 0, 1)])
    b_counts = [CaseFigures("x", 20, 18, 2, 0, 1), CaseFigures("y", 20, 11, 9, 0, 1)]
    fixed = compare(a, Side("B", 1, b_counts))
    looked = compare(a, Side("B", 1, b_counts, looked=True))
    assert (fixed.method, looked.method) == (FISHER_METHOD, ANYTIME_METHOD)
    assert [c.p_raw for c in fixed.cases] == [
        fisher_exact_p(2, 18, 18, 2),
        fisher_exact_p(10, 10, 11, 9),
    ]
    raw = [Fraction(anytime_p(2, 20, 18, 20)), Fraction(anytime_p(10, 20, 11, 20))]
    assert [c.p_raw for c in looked.cases] == raw
    assert [c.p for c in looked.cases] == holm(raw)
    assert looked.cases[0].verdict == fixed.cases[0].verdict == "improved"
    # The price of looking: the same counts, a larger p.
    assert looked.cases[0].p > fixed.cases[0].p
    assert method_lines(fixed) == []
    assert method_lines(looked)[0] == (
        "B: n chosen by looking (adaptive or extended), so each case is tested by the "
        f"{ANYTIME_METHOD}"
    )


def test_a_a_false_alarms_stay_under_alpha_when_stopping_at_the_first_alarm() -> None:
    """The worst use: look after every pair of attempts, up to 100 each, stop at the first
    p < 0.05. Fisher's test so used cries wolf far more often; this one stays under 0.05
    (bench/compare.py measures it with adaptive runs and more trials)."""
    rng = random.Random(11)
    trials, alarms, fisher_alarms = 400, 0, 0
    for _ in range(trials):
        rate = rng.choice([0.3, 0.5, 0.8])
        ca = cb = 0
        alarm = fisher_alarm = False
        for n in range(1, 101):
            ca += rng.random() < rate
            cb += rng.random() < rate
            alarm = alarm or anytime_p(ca, n, cb, n) < 0.05
            if n % 10 == 0:
                fisher_alarm = fisher_alarm or fisher_exact_p(ca, n - ca, cb, n - cb) < 0.05
        alarms += alarm
        fisher_alarms += fisher_alarm
    assert alarms / trials <= 0.05
    assert fisher_alarms / trials > 0.1  # looked at ten times, Fisher's promise is gone
