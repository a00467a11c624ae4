"""Interleaved: two evaluations (a baseline beside a candidate) take turns in one pool.

Each keeps its own policy, target, sink and end; the pool's limit bounds both together;
what ends one ends the other.
"""

from __future__ import annotations

import asyncio

import pytest

from passk_tui.core.attempt import Outcome, Turn
from passk_tui.core.errors import RunError
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.engine import Evaluation, Interleaved
from passk_tui.core.run.events import EvaluationFinished, Event
from passk_tui.core.run.policy import AdaptivePolicy
from tests.support.engine import ListSink, ScriptedTarget, case, settings


class Clocked:
    """A target whose Runs are logged into one shared timeline: (evaluation, event)."""

    def __init__(self, name: str, log: list[tuple[str, str]], delay: float = 0.005) -> None:
        self.name, self.log, self.delay = name, log, delay

    async def prepare(self) -> None:
        pass

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify) -> Turn:
        self.log.append((self.name, "start"))
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.log.append((self.name, "end"))
        return Turn("completed", output=attempt.case.input)

    async def aclose(self) -> None:
        pass


def most_in_flight(log: list[tuple[str, str]]) -> int:
    live = peak = 0
    for _, event in log:
        live += 1 if event == "start" else -1
        peak = max(peak, live)
    return peak


def pair(
    log: list[tuple[str, str]], attempts: int = 6, concurrency: int = 3
) -> tuple[Evaluation, Evaluation]:
    cases = [case("a", "1", "1"), case("b", "2", "2")]
    made = []
    for version in (1, 2):
        s = settings(version=version, attempts=attempts, concurrency=concurrency)
        made.append(Evaluation(f"ev_v{version}", cases, s, Clocked(f"v{version}", log)))
    return made[0], made[1]


async def test_attempts_alternate_and_the_limit_bounds_both_together() -> None:
    log: list[tuple[str, str]] = []
    baseline, candidate = pair(log)
    assert await Interleaved([baseline, candidate]).run() == ["done", "done"]
    starts = [name for name, event in log if event == "start"]
    assert starts.count("v1") == starts.count("v2") == 12
    # Strict turns: every second start is the other version's.
    assert starts == ["v1", "v2"] * 12
    assert most_in_flight(log) == 3
    for evaluation in (baseline, candidate):
        assert [f.passed for f in evaluation.progress.all_figures()] == [6, 6]


async def test_each_keeps_its_own_policy_and_the_other_gets_the_free_workers() -> None:
    """An adaptive candidate beside a fixed baseline: once the baseline is done, every
    worker goes to the candidate's extra attempts."""
    log: list[tuple[str, str]] = []
    baseline, candidate = pair(log, attempts=2)
    never = lambda order: None  # noqa: E731  (undecided: sample up to the cap)
    candidate.policy = AdaptivePolicy(2, 2, 8, never)
    assert await Interleaved([baseline, candidate]).run() == ["done", "done"]
    assert [f.n for f in baseline.progress.all_figures()] == [2, 2]
    assert [f.n for f in candidate.progress.all_figures()] == [8, 8]
    starts = [name for name, event in log if event == "start"]
    assert starts[:8] == ["v1", "v2"] * 4 and set(starts[8:]) == {"v2"}


async def test_a_failure_in_one_fails_the_other_keeping_what_it_finished() -> None:
    events: list[tuple[str, Event]] = []
    cases = [case("a", "1", "1")]
    sinks = [ListSink(), ListSink()]
    made = []
    for i, target in enumerate((ScriptedTarget(delay=0.01), ScriptedTarget(0.01, fail_on=3))):
        made.append(
            Evaluation(
                f"ev_{i}",
                cases,
                settings(attempts=8, concurrency=2),
                target,
                sink=sinks[i],
                on_event=lambda e, i=i: events.append((f"ev_{i}", e)),
            )
        )
    baseline, candidate = made
    assert await Interleaved(made).run() == ["failed", "failed"]
    assert candidate.error == "stack refused the key (401)"
    assert baseline.error == (
        "stopped with evaluation ev_1, which failed: stack refused the key (401)"
    )
    # The baseline's attempts that were in flight finished and were kept; nothing more began.
    assert 0 < len(sinks[0].rows) < 8
    assert baseline.progress.finished == len(sinks[0].rows)
    ends = [(who, e.status) for who, e in events if isinstance(e, EvaluationFinished)]
    assert sorted(ends) == [("ev_0", "failed"), ("ev_1", "failed")]


async def test_cancel_withdraws_the_attempts_in_flight_of_both() -> None:
    cases = [case("hang", "hang", "hang")]
    sinks = [ListSink(), ListSink()]
    made = [
        Evaluation(f"ev_{i}", cases, settings(attempts=3, concurrency=4), ScriptedTarget(),
                   sink=sinks[i])
        for i in range(2)
    ]  # fmt: skip
    running = Interleaved(made)
    task = asyncio.create_task(running.run())
    while sum(e.progress.in_flight for e in made) < 4:
        await asyncio.sleep(0.005)
    running.cancel()
    assert await task == ["cancelled", "cancelled"]
    withdrawn = [[r.outcome for r in sink.rows] for sink in sinks]
    assert [len(w) for w in withdrawn] == [2, 2]
    assert {o for w in withdrawn for o in w} == {Outcome.WITHDRAWN}
    assert all(e.progress.finished == 0 for e in made)


async def test_cancelling_one_ends_the_other_cancelled_too() -> None:
    """A face that stops only one (the app's cancel) stops the shared pool: the other is not
    'done' with attempts never started."""
    log: list[tuple[str, str]] = []
    baseline, candidate = pair(log, attempts=50, concurrency=2)
    task = asyncio.create_task(Interleaved([baseline, candidate]).run())
    while baseline.progress.finished < 2:
        await asyncio.sleep(0.002)
    baseline.cancel()
    assert await task == ["cancelled", "cancelled"]
    assert candidate.progress.finished < 100


class Refusing(ScriptedTarget):
    async def prepare(self) -> None:
        raise RunError("agent demo has no version 9 on the stack")


async def test_a_refused_prepare_ends_the_other_failed_before_any_run() -> None:
    events: list[Event] = []
    cases = [case("a", "1", "1")]
    fine = ScriptedTarget()
    baseline = Evaluation("ev_b", cases, settings(), fine, on_event=events.append)
    candidate = Evaluation("ev_c", cases, settings(version=9), Refusing())
    with pytest.raises(RunError, match="no version 9"):
        await Interleaved([baseline, candidate]).run()
    assert fine.calls == 0
    assert baseline.status == "failed"
    assert (
        baseline.error
        == "not run: evaluation ev_c could not: agent demo has no version 9 on the stack"
    )
    assert events == [EvaluationFinished("failed", baseline.error)]
