"""Sampling policies: fixed n lazily and in attempt-major order; adaptive with a toy stop rule."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from passk_tui.core.attempt import Outcome, Turn
from passk_tui.core.checks.kinds import compile_check
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.run.policy import AdaptivePolicy, FixedPolicy, Pause, Slot
from passk_tui.core.stats.gating.stopping import StopReason
from tests.support.records import record

P, W = Outcome.PASSED, Outcome.WRONG


def drain(policy) -> list[Slot]:
    slots = []
    while isinstance(slot := policy.next(), Slot):
        slots.append(slot)
    assert slot is Pause.DONE
    return slots


def test_fixed_is_attempt_major_and_skips_recorded() -> None:
    policy = FixedPolicy(2, 3, [record(0, 2)], retakes={(1, 3): 2})
    assert [(s.case_index, s.attempt, s.retake) for s in drain(policy)] == [
        (0, 1, 0), (1, 1, 0), (1, 2, 0), (0, 3, 0), (1, 3, 2),
    ]  # fmt: skip


def test_fixed_plans_ten_million_attempts_lazily() -> None:
    tracemalloc.start()
    policy = FixedPolicy(3, 10_000_000)
    first = [policy.next() for _ in range(5)]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [s.attempt for s in first] == [1, 1, 1, 2, 2]
    assert peak < 1_000_000  # a list of 30M slots would be gigabytes


def undecided_below(limit: float):
    """A toy stop rule: a case is decided (its pass rate's side of 0.5) once n >= limit,
    or at once when it always passes."""

    def rule(order: bytes) -> StopReason | None:
        passed, n = order.count(1), len(order)
        if passed == n:
            return StopReason("decided pass", n)
        if n < limit:
            return None
        return StopReason("decided pass" if passed * 2 > n else "decided fail", n)

    return rule


def land(policy: AdaptivePolicy, slot: Slot, passed: bool) -> None:
    policy.landed(record(slot.case_index, slot.attempt, P if passed else W))


def test_adaptive_samples_only_undecided_cases_up_to_the_cap() -> None:
    policy = AdaptivePolicy(3, attempts=2, max_attempts=6, stop_rule=undecided_below(10))
    outcomes = {0: lambda a: True, 1: lambda a: a % 2 == 0, 2: lambda a: a == 1}
    counts = [0, 0, 0]
    while isinstance(slot := policy.next(), Slot):
        counts[slot.case_index] += 1
        land(policy, slot, outcomes[slot.case_index](slot.attempt))
    assert slot is Pause.DONE
    assert counts == [2, 6, 6]
    assert policy.stop_reasons == {
        0: StopReason("decided pass", 2),
        1: StopReason("capped", 6),
        2: StopReason("capped", 6),
    }
    assert [str(policy.stop_reasons[i]) for i in (0, 1)] == [
        "decided pass at 2",
        "capped at 6 undecided",
    ]
    assert [policy.planned(i) for i in range(3)] == [2, 6, 6]


def test_adaptive_waits_for_first_pass_then_feeds_every_free_worker() -> None:
    """No starvation: with undecided cases below the cap, each free worker gets an attempt."""
    policy = AdaptivePolicy(2, attempts=1, max_attempts=10, stop_rule=undecided_below(99))
    a, b = policy.next(), policy.next()
    assert policy.next() is Pause.WAIT  # nothing judged yet, two in flight
    land(policy, a, False)
    more = [
        policy.next() for _ in range(4)
    ]  # case 0 is undecided: four free workers, four attempts
    assert [(s.case_index, s.attempt) for s in more] == [(0, 2), (0, 3), (0, 4), (0, 5)]
    land(policy, b, False)
    interleaved = [policy.next() for _ in range(4)]
    assert [(s.case_index, s.attempt) for s in interleaved] == [(1, 2), (1, 3), (1, 4), (1, 5)]
    assert [(s.case_index, s.attempt) for s in (policy.next(), policy.next())] == [(0, 6), (1, 6)]


def test_in_flight_attempts_of_a_decided_case_finish_and_count() -> None:
    rule = lambda order: StopReason("decided fail", len(order)) if order.count(0) >= 2 else None  # noqa: E731
    policy = AdaptivePolicy(1, attempts=1, max_attempts=20, stop_rule=rule)
    first = policy.next()
    land(policy, first, False)
    extra = [policy.next() for _ in range(3)]
    land(policy, extra[0], False)  # decided now, two still in flight
    assert policy.stop_reasons[0] == StopReason("decided fail", 2)
    assert policy.next() is Pause.WAIT
    land(policy, extra[1], True)
    land(policy, extra[2], True)
    assert policy.next() is Pause.DONE
    assert policy.stop_reasons[0] == StopReason("decided fail", 2)  # kept as decided, n then 4


def test_adaptive_resume_fills_gaps_and_continues() -> None:
    stored = [record(0, 1, W), record(0, 2, P), record(0, 4, W)]  # 3 was in flight
    policy = AdaptivePolicy(
        1, 2, 6, stop_rule=undecided_below(99), records=stored, retakes={(0, 3): 1}
    )
    slot = policy.next()
    assert (slot.attempt, slot.retake) == (3, 1)
    # Undecided on its prefix 1..2 already: an extra attempt beside the gap being filled.
    extra = policy.next()
    assert extra.attempt == 5
    land(policy, slot, True)
    land(policy, extra, True)
    assert [s.attempt for s in drain_landing(policy)] == [6]


def test_a_case_is_judged_on_its_finished_prefix_not_on_whichever_finished_first() -> None:
    """Attempts 2 and 3 pass fast while 1 (a failure) is slow: no verdict until 1 is in."""
    rule = lambda order: StopReason("decided pass", len(order)) if all(order) else None  # noqa: E731
    policy = AdaptivePolicy(1, attempts=1, max_attempts=5, stop_rule=rule)
    first = policy.next()
    land(policy, first, False)  # undecided at 1: more attempts
    second, third = policy.next(), policy.next()
    land(policy, third, True)
    assert policy.stop_reasons == {}
    land(policy, second, True)
    assert policy.stop_reasons == {}  # 2 of 3 on the prefix: still undecided
    assert policy.most_left() == 2


def test_the_same_outcomes_reach_the_same_reason_whatever_the_order() -> None:
    """A resume rebuilt from the records decides where the uninterrupted run did."""
    rule = undecided_below(4)
    outcomes = {1: W, 2: P, 3: P, 4: P, 5: W}
    stored = [record(0, a, outcomes[a]) for a in (5, 3, 1, 4, 2)]
    policy = AdaptivePolicy(1, 2, 9, rule, records=stored)
    assert policy.stop_reasons == {0: StopReason("decided pass", 4)}
    assert policy.next() is Pause.DONE and policy.most_left() == 0


def test_an_extra_attempt_withdrawn_before_runs_again_as_its_next_retake() -> None:
    """Attempt 3 was withdrawn above every recorded one: its old key would replay a cancel."""
    stored = [record(0, 1, W), record(0, 2, P)]
    policy = AdaptivePolicy(1, 2, 4, undecided_below(99), records=stored, retakes={(0, 3): 1})
    assert [(s.attempt, s.retake) for s in drain_landing(policy)] == [(3, 1), (4, 0)]


def test_attempts_in_flight_before_are_finished_even_for_a_decided_case() -> None:
    """Their Runs may have started on the stack: what it ran counts, as had nothing stopped."""
    rule = lambda order: StopReason("decided fail", len(order)) if order.count(0) >= 2 else None  # noqa: E731
    stored = [record(0, 1, W), record(0, 2, W)]  # decided at 2; 3 and 4 were in flight
    in_flight = [Slot(0, 3), Slot(0, 4, 1)]
    policy = AdaptivePolicy(
        1, 1, 20, rule, records=stored, retakes={(0, 4): 1}, in_flight=in_flight
    )
    assert policy.stop_reasons == {0: StopReason("decided fail", 2)} and policy.most_left() == 2
    assert drain_landing(policy) == in_flight


def drain_landing(policy: AdaptivePolicy) -> list[Slot]:
    slots = []
    while isinstance(slot := policy.next(), Slot):
        slots.append(slot)
        land(policy, slot, False)
    return slots


class EchoTarget:
    """Answers each attempt with its case's input for odd attempts, "no" for even ones."""

    def __init__(self) -> None:
        self.started: list[tuple[str, int]] = []

    async def prepare(self) -> None:
        pass

    async def execute(self, attempt, deadline, notify) -> Turn:
        self.started.append((attempt.case.name, attempt.attempt))
        answer = attempt.case.input if attempt.attempt % 2 else "no"
        return Turn("completed", output=answer)

    async def aclose(self) -> None:
        pass


async def test_engine_runs_an_adaptive_policy_with_growing_rows() -> None:
    spec = {"equals": "yes"}
    cases = [
        Case(name, answer, compile_check(spec, name, base_dir=Path(".")), spec)
        for name, answer in (("odd", "yes"), ("also-odd", "yes"), ("never", "no"))
    ]
    settings = Settings(agent="a", version=1, cases_path="x", attempts=2, k=2, concurrency=3)
    rule = lambda order: StopReason("decided fail", len(order)) if not any(order) else None  # noqa: E731
    policy = AdaptivePolicy(3, 2, 7, rule)
    target = EchoTarget()
    ev = Evaluation("ev_a", cases, settings, target, policy=policy)
    assert await ev.run() == "done"
    assert [ev.progress.figures(i).n for i in range(3)] == [7, 7, 2]
    assert [len(row) for row in ev.progress.cells] == [7, 7, 2]
    assert ev.progress.total == ev.progress.finished == 16
    assert len(set(target.started)) == len(target.started) == 16
    assert str(policy.stop_reasons[2]) == "decided fail at 2"
