"""What an evaluation's settings make of it: its sampling policy, its level, its gate.

One place for the choice, so that the headless table, the exports, the HTML
report and the app read an evaluation the same way: its intervals by the method
``core.stats.rates.interval_choice`` decides (anytime-valid once n was chosen by looking)
and, adaptive with ``--require``, the confident gate, whose test is what stopped
each case (``core.stats.gating.stopping``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.budget import BudgetedPolicy, budgeted
from passk_tui.core.run.policy import AdaptivePolicy, FixedPolicy, Slot
from passk_tui.core.stats.costs.case_costs import total_cost
from passk_tui.core.stats.costs.judge_costs import judge_costs
from passk_tui.core.stats.gating.family_wise import case_level
from passk_tui.core.stats.gating.gate import Reading, read
from passk_tui.core.stats.gating.stopping import (
    DEFAULT_PRECISION,
    GateRule,
    PrecisionRule,
    stop_rule,
)
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.interval_choice import IntervalChoice, evaluation_choice
from passk_tui.core.stats.rates.intervals import DEFAULT_CONFIDENCE


def gate_confidence(settings: Settings) -> float | None:
    """The level the gate reads intervals at; None: the seed's point gate.

    An adaptive evaluation's gate is always the confident one (at 0.95 unless
    ``--confidence`` says otherwise): its cases stopped on that test, so a
    point gate would contradict the reasons they stopped for.
    """
    if settings.confidence is not None:
        return settings.confidence
    return DEFAULT_CONFIDENCE if settings.adaptive else None


def case_stop_rule(settings: Settings, case_count: int) -> GateRule | PrecisionRule:
    """The adaptive stop rule: the gate's with ``--require``, else ``--precision``'s; at
    each case's level (``--family-wise``: the suite's promise shared among its cases)."""
    confidence = DEFAULT_CONFIDENCE if settings.confidence is None else settings.confidence
    if settings.require is not None:
        confidence = case_level(confidence, case_count, settings.family_wise)
    return stop_rule(
        settings.require,
        settings.k,
        DEFAULT_PRECISION if settings.precision is None else settings.precision,
        confidence,
    )


def sampling_policy(
    settings: Settings,
    case_count: int,
    records: Iterable[AttemptRecord] = (),
    retakes: Mapping[tuple[int, int], int] | None = None,
    in_flight: Iterable[Slot] = (),
    runs_started: int | None = None,
) -> FixedPolicy | AdaptivePolicy | BudgetedPolicy:
    """The policy the settings name, continued from ``records`` (a resume, an extension).

    Adaptive, the attempts ``in_flight`` before are handed out again before any the
    policy chooses; a fixed n hands them out anyway, having no record of them. With a
    budget, the policy is held to it (``core.run.budget``), counting ``runs_started``
    before (default: a Run per record and per attempt in flight) and the records' cost;
    adaptive, its extra attempts then go to the undecided cases closest to settling.
    """
    records, in_flight = list(records), list(in_flight)
    policy: FixedPolicy | AdaptivePolicy
    if settings.max_attempts is None:
        policy = FixedPolicy(case_count, settings.attempts, records, retakes)
    else:
        rule = case_stop_rule(settings, case_count)
        policy = AdaptivePolicy(
            case_count,
            settings.attempts,
            settings.max_attempts,
            rule.reason,
            records,
            retakes,
            in_flight,
            closest_first=budgeted(settings),
        )
    if not budgeted(settings):
        return policy
    started = len(records) + len(in_flight) if runs_started is None else runs_started
    spent = Fraction(0) if settings.price is None else total_cost(settings.price, records)
    spent = (spent or Fraction(0)) + (judge_costs(records).cost or 0)
    return BudgetedPolicy(
        policy,
        settings,
        runs_started=started,
        cost_spent=spent,
        errored=sum(r.outcome is Outcome.ERRORED for r in records),
        replays=in_flight,
    )


def interval_level(settings: Settings, case_count: int = 1) -> float:
    """The level of every interval shown for the evaluation: its gate's, else the default;
    ``--family-wise``, each case's share of the suite's (``core.stats.gating.family_wise``)."""
    level = gate_confidence(settings)
    if level is None:
        return DEFAULT_CONFIDENCE
    family_wise = settings.family_wise and settings.require is not None
    return case_level(level, case_count, family_wise and settings.confidence is not None)


def reading(
    figures: Sequence[CaseFigures],
    settings: Settings,
    suite_size: int | None = None,
    choice: IntervalChoice | None = None,
) -> Reading:
    """Every case's intervals and verdict as the settings call for (method, level, gate).

    ``suite_size`` and ``choice`` (the evaluation's method, ``core.stats.rates.interval_choice``): for
    when ``figures`` are only some of its cases (one case redrawn live); by default the
    method is decided from ``figures``.
    """
    return read(
        figures,
        settings.require,
        gate_confidence(settings),
        (choice or evaluation_choice(settings, figures)).method,
        settings.family_wise,
        suite_size,
    )
