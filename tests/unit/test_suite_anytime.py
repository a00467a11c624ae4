"""core/stats/comparing/suite_anytime.py: the pair factor by hand, its null expectation exactly, its promise."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from passk_tui.core.stats.comparing.suite_anytime import (
    log_factor,
    suite_anytime_p,
    suite_log_e_values,
)


def chance(q: float, y: int) -> float:
    return q if y else 1 - q


def test_one_case_by_hand() -> None:
    # Pair 1 (A 0, B 1): no pair seen yet, so no shift, a factor of 1. Then one pair went B's
    # way: the shift is log(1.5 / 0.5), around the case's pooled rate (1 + 1/2) / 3 = 1/2.
    better, worse = suite_log_e_values([(b"\x00\x01", b"\x01\x01")])
    q_a, q_b = 1 / (1 + math.sqrt(3)), math.sqrt(3) / (1 + math.sqrt(3))
    mean = (q_a + q_b) / 2
    assert better == pytest.approx(math.log(q_a * q_b / mean**2), rel=1e-12)
    assert worse == 0.0  # the bet on B worse stays at no shift: nothing staked
    assert suite_anytime_p(better, worse) == 1.0  # a concordant pair only costs


def test_a_pair_factor_has_expectation_at_most_1_at_every_common_rate() -> None:
    rng = random.Random(4)
    for _ in range(300):
        rate, shift = rng.uniform(0.01, 0.99), rng.uniform(-4, 4)
        for p in (0.0, 0.01, 0.3, 0.5, 0.77, 1.0):
            expectation = sum(
                chance(p, y_a) * chance(p, y_b) * math.exp(log_factor(rate, shift, y_a, y_b))
                for y_a in (0, 1)
                for y_b in (0, 1)
            )
            assert expectation <= 1 + 1e-12


def stop_early(outcomes: tuple[int, ...]) -> bytes:
    """A side that stops once its first two outcomes agree (n chosen by looking), else has 3."""
    n = 2 if outcomes[0] == outcomes[1] else 3
    return bytes(outcomes[:n])


def test_the_e_value_at_a_looked_at_stop_has_null_expectation_at_most_1_exactly() -> None:
    """Every outcome of two cases, 3 attempts a side, each side stopping by looking: the mean
    of E = (better + worse) / 2 over them, weighted by their chance under a common rate."""
    sequences = list(itertools.product((0, 1), repeat=3))
    for p_1, p_2 in ((0.5, 0.5), (0.2, 0.9), (0.7, 0.05), (0.95, 0.95)):
        expectation = 0.0
        for a1, b1, a2, b2 in itertools.product(sequences, repeat=4):
            chance_of = math.prod(
                chance(p, y) for p, seq in ((p_1, a1), (p_1, b1), (p_2, a2), (p_2, b2)) for y in seq
            )
            better, worse = suite_log_e_values(
                [(stop_early(a1), stop_early(b1)), (stop_early(a2), stop_early(b2))]
            )
            expectation += chance_of * (math.exp(better) + math.exp(worse)) / 2
        assert expectation <= 1 + 1e-12, (p_1, p_2)


def test_a_a_suites_sampled_by_looking_seldom_raise_an_alarm_and_a_common_lift_is_found() -> None:
    rng = random.Random(8)

    def side(rate: float) -> bytes:
        out = bytearray()
        while len(out) < 30 and not (len(out) >= 5 and out[-3:] == out[-1:] * 3):
            out.append(rng.random() < rate)  # stop after three alike: n chosen by looking
        return bytes(out)

    alarms = found = 0
    trials = 300
    for _ in range(trials):
        rates = [rng.uniform(0.2, 0.9) for _ in range(20)]
        lifted = [r * 3 / (1 - r + 3 * r) for r in rates]
        null = suite_log_e_values([(side(r), side(r)) for r in rates])
        alarms += suite_anytime_p(*null) < 0.05
        better, worse = suite_log_e_values(
            [(side(r), side(q)) for r, q in zip(rates, lifted, strict=True)]
        )
        found += suite_anytime_p(better, worse) < 0.05 and better > worse
    assert alarms / trials <= 0.05
    assert found / trials > 0.2
