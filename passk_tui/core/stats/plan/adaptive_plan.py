"""The adaptive policy's expected attempts for a case at a given pass rate, by simulation.

Adaptive attempts (``--max-attempts``) stop a case the first time its
anytime-valid interval lies wholly on one side of the line, so the attempts it
takes are a stopping time whose law has no closed form worth the name; it is
simulated here, at the level of counts, with a seeded ``random.Random`` (the
seed is shown, so a plan can be made again exactly).

A simulated case gets ``attempts`` first, then one more at a time up to
``cap``. Its verdict after m attempts is the gate's on the running
intersection of the confidence sequence over its prefixes (``core.stats.rates.sequences``):
the intersection's low end reaches the line the first time any prefix's
interval does, so the case is decided at max(attempts, the first such look),
read from the anytime-valid thresholds (``core.stats.plan.gate_thresholds``) in one
comparison per attempt. (The intersection skips an interval that would empty
it; that can only happen once some interval has already missed the rate, a
chance of at most 1-C, and is not simulated.) Attempts one at a time: with
``--concurrency`` above 1, those in flight when a case is decided also finish
and count, so the real mean is a little higher.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.inputs.settings import DEFAULT_ATTEMPTS
from passk_tui.core.stats.plan.gate_chance import (
    RightVerdict,
    pass_at_k_of_rate,
    right_verdict,
)
from passk_tui.core.stats.plan.gate_thresholds import Thresholds

#: Cases simulated per expected rate: the mean's standard error is under 1% of the cap.
DEFAULT_SIMULATIONS = 2_000
DEFAULT_SEED = 1
#: ``plan --adaptive`` without ``--attempts`` / ``--max-attempts``: the run's own default
#: first batch, and a cap a suite can afford.
DEFAULT_FIRST = DEFAULT_ATTEMPTS
DEFAULT_CAP = 200


@dataclass(frozen=True, slots=True)
class AdaptiveRow:
    """One expected rate under the adaptive policy: mean attempts, right and undecided shares."""

    rate: Fraction
    pass_at_k: Fraction
    mean_attempts: float
    right: float
    """Share of simulated cases given the right verdict (0 when none is right)."""
    undecided: float
    """Share that reached the cap undecided."""
    verdict: RightVerdict


def simulate_case(
    rng: random.Random, rate: float, thresholds: Thresholds, first: int, cap: int
) -> tuple[int, str]:
    """(attempts made, verdict) of one simulated case: ``pass``, ``fail`` or ``undecided``."""
    passed = 0
    decided = "undecided"
    for n in range(1, cap + 1):
        passed += rng.random() < rate
        if decided == "undecided":
            if passed >= thresholds.pass_from[n]:
                decided = "pass"
            elif passed <= thresholds.fail_to[n]:
                decided = "fail"
        if n >= first and decided != "undecided":
            return n, decided
    return cap, decided


def adaptive_rows(
    rates: Sequence[Fraction],
    thresholds: Thresholds,
    first: int,
    cap: int,
    seed: int = DEFAULT_SEED,
    simulations: int = DEFAULT_SIMULATIONS,
) -> list[AdaptiveRow]:
    """A row per expected rate, each simulated from its own stream of the one seed."""
    thresholds.extend(cap)
    rows = []
    for index, rate in enumerate(rates):
        rng = random.Random(f"{seed}/{index}")
        verdict = right_verdict(rate, thresholds.k, thresholds.require)
        made = right = undecided = 0
        for _ in range(simulations):
            n, said = simulate_case(rng, float(rate), thresholds, first, cap)
            made += n
            right += said == verdict
            undecided += said == "undecided"
        rows.append(
            AdaptiveRow(
                rate,
                pass_at_k_of_rate(rate, thresholds.k),
                made / simulations,
                right / simulations,
                undecided / simulations,
                verdict,
            )
        )
    return rows
