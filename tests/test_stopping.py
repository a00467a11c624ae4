"""The stop rules, their reasons as text, and the wrong-verdict rate under stopping-when-decided by simulation."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from passk_tui.core.intervals import CLOPPER_PEARSON, case_intervals, gate_verdict
from passk_tui.core.sequences import CONFIDENCE_SEQUENCE
from passk_tui.core.stopping import (
    DEFAULT_PRECISION,
    GateRule,
    PrecisionRule,
    StopReason,
    capped_reason,
    stop_rule,
)

REQUIRE = Fraction(4, 5)
K = 3
#: The rate at which pass@3 = 1-(1-p)^3 is exactly 0.8: the hardest rates to judge sit around it.
THRESHOLD_RATE = 1 - 0.2 ** (1 / 3)


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        (StopReason("decided pass", 14), "decided pass at 14"),
        (StopReason("decided fail", 9), "decided fail at 9"),
        (StopReason("precise", 23), "precise at 23"),
        (StopReason("capped", 40), "capped at 40 undecided"),
    ],
)
def test_a_reason_is_stored_as_text_and_read_back(reason: StopReason, text: str) -> None:
    assert str(reason) == text
    assert StopReason.parse(text) == reason
    assert reason.decided == (reason.kind != "capped")


@pytest.mark.parametrize(
    "text", ["", "capped at 40", "decided pass at 4 undecided", "precise at x", "stopped at 3"]
)
def test_text_that_names_no_reason_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a stop reason"):
        StopReason.parse(text)


def test_the_cap_is_phrased_like_any_other_reason() -> None:
    assert capped_reason(40) == "capped at 40 undecided"
    assert not StopReason.parse(capped_reason(40)).decided


def test_a_case_that_always_passes_is_decided_at_6_and_one_that_never_does_at_9() -> None:
    """The figures the method's docstring promises for --require 0.8 --k 3 at 95%."""
    rule = stop_rule(REQUIRE, K)
    assert rule(5, 5) is None
    assert rule(6, 6) == "decided pass at 6"
    assert rule(0, 8) is None
    assert rule(0, 9) == "decided fail at 9"


def test_no_verdict_below_k_attempts_where_pass_at_k_is_not_shown() -> None:
    """Two passes of two already put pass@10 above 0.5, but the table shows pass@10 as '-' until n = 10."""
    rule = GateRule(Fraction(1, 2), 10)
    shown = case_intervals(2, 2, 10, method=CONFIDENCE_SEQUENCE).pass_at_k
    assert gate_verdict(shown, rule.require) == "pass"
    assert rule(2, 2) is None
    assert rule(10, 10) == "decided pass at 10"


def test_the_gate_rule_decides_exactly_where_the_anytime_valid_gate_does() -> None:
    """What the table shows as pass/fail is what stopped the case: one interval for both."""
    rule = stop_rule(REQUIRE, K)
    for n in range(K, 41):
        for c in range(n + 1):
            shown = case_intervals(c, n, K, 0.95, CONFIDENCE_SEQUENCE).pass_at_k
            verdict = gate_verdict(shown, REQUIRE)
            expected = None if verdict == "undecided" else f"decided {verdict} at {n}"
            assert rule(c, n) == expected


def test_precise_once_the_pass_at_1_interval_is_at_most_the_width() -> None:
    rule = stop_rule(None, K)
    assert rule == PrecisionRule(DEFAULT_PRECISION, 0.95)
    assert rule(0, 0) is None
    for n in range(1, 61):
        for c in range(n + 1):
            width = CONFIDENCE_SEQUENCE.rate(c, n, 0.95).width
            assert (rule(c, n) == f"precise at {n}") == (width <= 0.2)
            assert (rule(c, n) is None) == (width > 0.2)
    assert rule(23, 23) is None
    assert rule(24, 24) == "precise at 24"


# The simulation: each case samples one attempt at a time from its true rate,
# first --attempts of them, then until its rule names a reason or it reaches
# the cap, as the adaptive policy does. The rules are pure in (passed, n), so
# each is tabulated once over every (passed, n) up to the cap.

ATTEMPTS = 3
CAP = 40
LEVEL = 0.95
NEAR = [THRESHOLD_RATE + d for d in (-0.01, -0.005, -0.002, 0.002, 0.005, 0.01)]


def _table(rule: GateRule | PrecisionRule, cap: int) -> dict[tuple[int, int], StopReason]:
    return {
        (c, n): reason
        for n in range(cap + 1)
        for c in range(n + 1)
        if (reason := rule.reason(c, n)) is not None
    }


def _sample(p: float, stops: dict, cap: int, rng: random.Random) -> tuple[list[int], StopReason]:
    """The running pass counts of one case, and why it stopped."""
    counts, passed = [], 0
    for n in range(1, cap + 1):
        passed += rng.random() < p
        counts.append(passed)
        if n >= ATTEMPTS and (passed, n) in stops:
            return counts, stops[passed, n]
    return counts, StopReason("capped", cap)


INTERVALS = {
    (c, n): CONFIDENCE_SEQUENCE.rate(c, n, LEVEL) for n in range(1, CAP + 1) for c in range(n + 1)
}


def _wrong_and_covered(rule: GateRule, rates: list[float], seed: int) -> tuple[float, float, int]:
    """Per case: the share with a verdict on the wrong side of X, the share covered at every look; decided."""
    stops, rng = _table(rule, CAP), random.Random(seed)
    wrong = decided = covered = 0
    for p in rates:
        counts, reason = _sample(p, stops, CAP, rng)
        covered += all(
            INTERVALS[c, n].low <= p <= INTERVALS[c, n].high for n, c in enumerate(counts, start=1)
        )
        if reason.decided:
            decided += 1
            wrong += (reason.kind == "decided pass") != (1 - (1 - p) ** K >= REQUIRE)
    return wrong / len(rates), covered / len(rates), decided


def _margin(cases: int) -> float:
    """Three standard errors of a share near 1-C over ``cases`` simulated cases."""
    return 3 * ((1 - LEVEL) * LEVEL / cases) ** 0.5


def test_stopping_when_decided_keeps_wrong_verdicts_under_one_minus_c() -> None:
    """6,000 cases within 0.01 of the threshold rate (the hardest), 2,000 spread over [0, 1].

    Every case is looked at after each attempt from the 3rd to the 40th. The
    promise is per case, whatever its rate: the chance that it ends with a
    verdict on the wrong side of X is under 1-C (the share among *decided*
    cases is not bounded: near the threshold few cases are decided, and most of
    those by luck). It holds, and the interval holds the true rate at every look
    in at least C of the cases; the fixed-n interval, stopped the same way,
    breaks the promise (so the test can fail).
    """
    rng = random.Random(11)
    near = [rng.choice(NEAR) for _ in range(6000)]
    spread = [rng.random() for _ in range(2000)]
    rule = stop_rule(REQUIRE, K, confidence=LEVEL)
    for rates, seed in ((near, 1), (spread, 2)):
        wrong, covered, decided = _wrong_and_covered(rule, rates, seed)
        assert decided > 100
        assert wrong <= (1 - LEVEL) + _margin(len(rates))
        assert covered >= LEVEL - _margin(len(rates))
    fixed_n = GateRule(REQUIRE, K, LEVEL, CLOPPER_PEARSON)
    wrong, _, _ = _wrong_and_covered(fixed_n, near, 1)
    assert wrong > (1 - LEVEL) + _margin(len(near))


def test_a_precise_case_holds_its_true_rate_at_the_stop() -> None:
    """--precision: 3,000 cases spread over [0, 1], capped at 60; the interval at the stop covers p in >= C."""
    cap, rng = 60, random.Random(5)
    stops = _table(stop_rule(None, K, confidence=LEVEL), cap)
    covered, precise = 0, 0
    for _ in range(3000):
        p = rng.random()
        counts, reason = _sample(p, stops, cap, rng)
        interval = CONFIDENCE_SEQUENCE.rate(counts[-1], len(counts), LEVEL)
        covered += interval.low <= p <= interval.high
        precise += reason.kind == "precise"
    assert precise > 300
    assert covered / 3000 >= LEVEL - _margin(3000)
