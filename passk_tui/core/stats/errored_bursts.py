"""Errored attempts that came in a burst: the rule, and the warning it gives.

Every interval assumes a case's attempts are independent. Errored attempts
(the Turn did not complete, or no Turn could be had) count as not passing, and
outages, rate limits and a provider's bad minute come in bursts: a dozen
attempts errored in the same minute say more about the platform than the agent.

The rule, a scan statistic over the order in which attempts finished: take
the evaluation's N counted attempts sorted by their finish time (ties by case
and attempt number), and its E errored ones. Let W = ceil(N/10) (a tenth of the
evaluation, by finish) and K the most errored attempts any W consecutive ones
hold. It is a burst when

- E >= 5,
- K > E/2 (most of them within a short span of the evaluation's time), and
- ceil(N/W) P(H >= K) <= 0.001, H ~ Hypergeometric(N, E, min(N, 2W)).

The last is a bound on the chance that independent errors pack some stretch
that full: when every attempt errors independently with one chance, the E
errored ones are, given E, a uniformly random E of the N places in finish order
(whatever the durations), and any W consecutive places lie inside one of the
ceil(N/W) blocks of 2W that start at a multiple of W, so the chance that some
stretch holds K is at most the sum of those blocks' hypergeometric tails. The
false-alarm rate is therefore at most 0.1% for every N and E, by construction;
``bench/errored_bursts.py`` measures it (lower still) and how often a real
outage is found (``docs/benchmarks/notebook.md``). A suite whose errored attempts all sit
in one slow case that finishes last would also be called a burst: that too is
a pattern the independence assumption does not cover.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil, exp, lgamma

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.text.amounts import clock

#: Fewer errored attempts than this are never called a burst.
MIN_ERRORED = 5
#: The stretch scanned: this share of the evaluation's attempts, by finish.
STRETCH = 0.1
#: The most a burst's chance under independent errors may be (the false-alarm bound).
FALSE_ALARM = 0.001


@dataclass(frozen=True, slots=True)
class Burst:
    """``inside`` of the ``errored`` attempts finished within ``seconds`` (of the
    evaluation's ``span``), a stretch of ``stretch`` of its ``attempts`` by finish."""

    inside: int
    errored: int
    stretch: int
    attempts: int
    seconds: float
    span: float

    def warning(self) -> str:
        return (
            f"{self.inside} of the {self.errored} errored attempts finished within "
            f"{clock(self.seconds)} of the evaluation's {clock(self.span)} (among "
            f"{self.stretch} of its {self.attempts} attempts): the intervals assume independent "
            "attempts, and a burst of errors points at the platform (an outage, a rate limit), "
            "not the agent"
        )


def burst_in_places(places: Sequence[int], attempts: int) -> tuple[int, int, int] | None:
    """The rule on the errored attempts' places (0-based, ascending) in finish order among
    ``attempts``: (first, last, inside) of the fullest stretch when it is a burst, else None."""
    errored = len(places)
    if errored < MIN_ERRORED:
        return None
    stretch = ceil(attempts * STRETCH)
    best = (0, 0, 1)
    end = 0
    for start in range(errored):
        end = max(end, start)
        while end + 1 < errored and places[end + 1] - places[start] < stretch:
            end += 1
        if end - start + 1 > best[2]:
            best = (start, end, end - start + 1)
    inside = best[2]
    if 2 * inside <= errored:
        return None
    blocks = ceil(attempts / stretch)
    if blocks * hypergeometric_tail(attempts, errored, min(attempts, 2 * stretch), inside) > (
        FALSE_ALARM
    ):
        return None
    return best


def hypergeometric_tail(population: int, marked: int, drawn: int, at_least: int) -> float:
    """P(H >= at_least) for H the marked among ``drawn`` of ``population`` (lgamma sums)."""

    def log_choose(n: int, j: int) -> float:
        return lgamma(n + 1) - lgamma(j + 1) - lgamma(n - j + 1)

    top = min(marked, drawn)
    low = max(at_least, drawn - (population - marked), 0)
    whole = log_choose(population, drawn)
    return min(
        1.0,
        sum(
            exp(log_choose(marked, x) + log_choose(population - marked, drawn - x) - whole)
            for x in range(low, top + 1)
        ),
    )


def find_burst(records: Sequence[AttemptRecord]) -> Burst | None:
    """The rule on an evaluation's counted attempts: the burst it finds, or None."""
    ordered = sorted(records, key=lambda r: (r.ended, r.case_index, r.attempt))
    places = [i for i, r in enumerate(ordered) if r.outcome is Outcome.ERRORED]
    found = burst_in_places(places, len(ordered))
    if found is None:
        return None
    first, last, inside = found
    begun = min(r.started for r in ordered)
    return Burst(
        inside,
        len(places),
        ceil(len(ordered) * STRETCH),
        len(ordered),
        ordered[places[last]].ended - ordered[places[first]].ended,
        ordered[-1].ended - begun,
    )
