"""The stop rules, their reasons as text, and the wrong-verdict rate under stopping-when-decided by simulation."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from passk_tui.core.attempt import Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.policy import Slot
from passk_tui.core.run.sampling import reading, sampling_policy
from passk_tui.core.stats.gating.stopping import (
    DEFAULT_PRECISION,
    GateRule,
    PrecisionRule,
    StopReason,
    capped_reason,
    stop_rule,
)
from passk_tui.core.stats.progress import Progress
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON, case_intervals, gate_verdict
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE
from tests.support.judging import scipy_running
from tests.support.records import record

REQUIRE = Fraction(4, 5)
K = 3
PASS, FAIL = b"\x01", b"\x00"
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
    assert rule(PASS * 5) is None
    assert rule(PASS * 6) == "decided pass at 6"
    assert rule(FAIL * 8) is None
    assert rule(FAIL * 9) == "decided fail at 9"


def test_no_verdict_below_k_attempts_where_pass_at_k_is_not_shown() -> None:
    """Two passes of two already put pass@10 above 0.5, but the table shows pass@10 as '-' until n = 10."""
    rule = GateRule(Fraction(1, 2), 10)
    shown = case_intervals(2, 2, 10, method=CONFIDENCE_SEQUENCE).pass_at_k
    assert gate_verdict(shown, rule.require) == "pass"
    assert rule(PASS * 2) is None
    assert rule(PASS * 10) == "decided pass at 10"


def _orders(count: int, longest: int, seed: int) -> list[bytes]:
    """Random outcome sequences, every length from 1 to ``longest``, rates spread over [0, 1]."""
    rng = random.Random(seed)
    orders = []
    for _ in range(count):
        p = rng.random()
        orders.append(bytes(rng.random() < p for _ in range(rng.randint(1, longest))))
    return orders


def test_the_gate_rule_decides_exactly_where_the_anytime_valid_gate_does() -> None:
    """What the table shows as pass/fail is what stopped the case: one interval (the running
    intersection over the attempts in order) for both."""
    rule = stop_rule(REQUIRE, K)
    for order in _orders(600, 40, 3):
        n = len(order)
        shown = case_intervals(order.count(1), n, K, 0.95, CONFIDENCE_SEQUENCE, order).pass_at_k
        verdict = "undecided" if n < K else gate_verdict(shown, REQUIRE)
        expected = None if verdict == "undecided" else f"decided {verdict} at {n}"
        assert rule(order) == expected


def test_precise_once_the_pass_at_1_interval_is_at_most_the_width() -> None:
    rule = stop_rule(None, K)
    assert rule == PrecisionRule(DEFAULT_PRECISION, 0.95)
    assert rule(b"") is None
    for order in _orders(600, 60, 4):
        width = CONFIDENCE_SEQUENCE.rate(order.count(1), len(order), 0.95, order).width
        assert (rule(order) == f"precise at {len(order)}") == (width <= 0.2)
        assert (rule(order) is None) == (width > 0.2)
    assert rule(PASS * 23) is None
    assert rule(PASS * 24) == "precise at 24"


# The simulation: each case samples one attempt at a time from its true rate,
# first --attempts of them, then until its rule names a reason or it reaches
# the cap, as the adaptive policy does, asking the rule with the outcomes so far.

ATTEMPTS = 3
CAP = 40
LEVEL = 0.95
NEAR = [THRESHOLD_RATE + d for d in (-0.01, -0.005, -0.002, 0.002, 0.005, 0.01)]


def _sample(
    p: float, rule: GateRule | PrecisionRule, cap: int, rng: random.Random
) -> tuple[bytes, StopReason]:
    """The outcomes of one case in attempt order, and why it stopped."""
    order = bytearray()
    for n in range(1, cap + 1):
        order.append(rng.random() < p)
        if n >= ATTEMPTS and (reason := rule.reason(bytes(order))) is not None:
            return bytes(order), reason
    return bytes(order), StopReason("capped", cap)


def _covered(order: bytes, p: float) -> bool:
    """Whether the interval shown holds p at every look up to the stop: the running
    intersections are nested, so whether the one at the stop holds it."""
    shown = CONFIDENCE_SEQUENCE.rate(order.count(1), len(order), LEVEL, order)
    return shown.low <= p <= shown.high


def _wrong_and_covered(rule: GateRule, rates: list[float], seed: int) -> tuple[float, float, int]:
    """Per case: the share with a verdict on the wrong side of X, the share covered at every look; decided."""
    rng = random.Random(seed)
    wrong = decided = covered = 0
    for p in rates:
        order, reason = _sample(p, rule, CAP, rng)
        covered += _covered(order, p)
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
    breaks the promise (so the test can fail; 2,000 of the near cases show it).
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
    wrong, _, _ = _wrong_and_covered(fixed_n, near[:2000], 1)
    assert wrong > (1 - LEVEL) + _margin(2000)


def test_a_precise_case_holds_its_true_rate_at_the_stop() -> None:
    """--precision: 3,000 cases spread over [0, 1], capped at 60; the interval at the stop covers p in >= C."""
    cap, rng = 60, random.Random(5)
    rule = stop_rule(None, K, confidence=LEVEL)
    covered, precise = 0, 0
    for _ in range(3000):
        p = rng.random()
        order, reason = _sample(p, rule, cap, rng)
        interval = CONFIDENCE_SEQUENCE.rate(order.count(1), len(order), LEVEL, order)
        covered += interval.low <= p <= interval.high
        precise += reason.kind == "precise"
    assert precise > 300
    assert covered / 3000 >= LEVEL - _margin(3000)


def test_a_case_decided_with_an_attempt_in_flight_stays_decided_when_that_attempt_fails() -> None:
    """The demo's "decided pass at 6, then 6/7": through the real policy and the gate's reading.

    Attempts 6 and 7 are in flight together; 6 passes and decides the case, then 7 fails
    and counts. The interval at 6 of 7 alone would read undecided; the one the reading
    shows is the running intersection, so it reads what the stop recorded.
    """
    settings = Settings("demo", 1, "cases.toml", attempts=5, k=K, require=REQUIRE, max_attempts=40)
    policy = sampling_policy(settings, 1)
    progress = Progress(["case"], settings.attempts, K)

    def hand_out_and_land(attempts: range) -> None:
        slots = [policy.next() for _ in attempts]
        assert [s.attempt for s in slots if isinstance(s, Slot)] == list(attempts)
        for attempt in attempts:
            landed = record(0, attempt, Outcome.PASSED if attempt <= 6 else Outcome.WRONG)
            policy.landed(landed)
            progress.add([landed])

    hand_out_and_land(range(1, 6))
    assert policy.stop_reasons == {}
    hand_out_and_land(range(6, 8))
    assert policy.stop_reasons == {0: StopReason("decided pass", 6)}
    (case,) = reading(progress.all_figures(), settings).cases
    assert (case.figures.passed, case.figures.n, case.verdict) == (6, 7, "pass")
    alone = case_intervals(6, 7, K, LEVEL, CONFIDENCE_SEQUENCE).pass_at_k
    assert gate_verdict(alone, REQUIRE) == "undecided"  # what the reading said before
    low, _ = scipy_running(b"\x01" * 6 + b"\x00", LEVEL)
    assert case.intervals.pass_at_k.low == pytest.approx(1 - (1 - low) ** K, abs=1e-9)
