"""The errored-burst rule: what it calls a burst, what it does not, its bound against scipy."""

from __future__ import annotations

import random

import pytest
from scipy.stats import hypergeom

from passk_tui.core.attempt import Outcome
from passk_tui.core.stats.errored_bursts import (
    burst_in_places,
    find_burst,
    hypergeometric_tail,
)
from tests.support.records import record

P, E = Outcome.PASSED, Outcome.ERRORED


@pytest.mark.parametrize(
    ("population", "marked", "drawn", "at_least"),
    [(200, 14, 40, 10), (1000, 69, 200, 51), (50, 5, 10, 3), (5000, 8, 1000, 5), (30, 6, 30, 6)],
)
def test_the_tail_is_scipys(population: int, marked: int, drawn: int, at_least: int) -> None:
    expected = hypergeom.sf(at_least - 1, population, marked, drawn)
    assert hypergeometric_tail(population, marked, drawn, at_least) == pytest.approx(
        expected, rel=1e-9, abs=1e-300
    )


def _evaluation(outcomes: list[Outcome]) -> list:
    """Attempts finishing one a second, in the order given."""
    return [
        record(i % 5, i // 5 + 1, outcome, started=1000.0 + i - 2, ended=1000.0 + i)
        for i, outcome in enumerate(outcomes)
    ]


def test_an_outage_is_a_burst_and_the_warning_says_what_it_means() -> None:
    outcomes = [P] * 200
    for i in range(120, 132):  # twelve errored in a row, a second apart
        outcomes[i] = E
    outcomes[10] = outcomes[170] = E
    burst = find_burst(_evaluation(outcomes))
    assert burst is not None
    assert (burst.inside, burst.errored, burst.stretch, burst.attempts) == (12, 14, 20, 200)
    assert burst.warning() == (
        "12 of the 14 errored attempts finished within 0:11 of the evaluation's 3:21 (among 20 "
        "of its 200 attempts): the intervals assume independent attempts, and a burst of errors "
        "points at the platform (an outage, a rate limit), not the agent"
    )


def test_spread_errors_few_errors_and_a_thin_majority_are_not() -> None:
    rng = random.Random(3)
    spread = [E if rng.random() < 0.1 else P for _ in range(400)]
    assert find_burst(_evaluation(spread)) is None
    assert burst_in_places([0, 1, 2, 3], 100) is None  # four: too few to call
    # five of nine inside a tenth is a majority, but independent errors do that often enough
    assert burst_in_places([0, 1, 2, 3, 4, 30, 50, 70, 90], 50) is None
    # five in a row of 1,000 could still be chance at 0.1% (the bound is 10 x 0.2^5); six are not
    assert burst_in_places(list(range(5)), 1000) is None
    assert burst_in_places(list(range(6)), 1000) == (0, 5, 6)


def test_finish_order_not_attempt_order_is_what_is_scanned() -> None:
    """Errors spread over the attempt numbers but finishing together are a burst."""
    records = [
        record(i % 4, i // 4 + 1, E if i % 20 == 0 else P, started=0.0, ended=float(i))
        for i in range(400)
    ]
    assert find_burst(records) is None
    together = [
        r if r.outcome is P else record(r.case_index, r.attempt, E, started=0.0, ended=150.5)
        for r in records
    ]
    burst = find_burst(together)
    assert burst is not None and burst.inside == 20 and burst.seconds == 0.0
