"""The engine's own rules: deadlines, cancel, failure, stored-before-shown, retries as events.

The target here is an in-process double of the Target protocol: the real ones
(command, openai, stack) are tested against real processes and servers elsewhere.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from passk_tui.core.attempt import AttemptRecord, Outcome, Turn
from passk_tui.core.checks.kinds import compile_check
from passk_tui.core.errors import RunError
from passk_tui.core.run.attempt_keys import PlannedAttempt, idempotency_key
from passk_tui.core.run.cases import Case
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.run.events import (
    AttemptFinished,
    AttemptRetrying,
    AttemptStarted,
    EvaluationFinished,
    Event,
)
from passk_tui.core.run.target import RetryNotice
from passk_tui.core.stats.progress import Cell
from tests.support.engine import ListSink, ScriptedTarget, case, settings


async def test_outcomes_counts_and_stored_before_shown() -> None:
    sink = ListSink()
    seen: list[Event] = []

    def on_event(event: Event) -> None:
        if isinstance(event, AttemptFinished):
            assert event.record in sink.rows  # on disk (here: in the sink) before it is shown
        seen.append(event)

    cases = [case("good", "391", "391"), case("bad", "390", "391")]
    ev = Evaluation(
        "ev_t", cases, settings(concurrency=2), ScriptedTarget(), sink=sink, on_event=on_event
    )
    assert await ev.run() == "done"
    good, bad = ev.progress.all_figures()
    assert (good.passed, good.wrong, good.errored) == (3, 0, 0)
    assert (bad.passed, bad.wrong, bad.errored) == (0, 3, 0)
    assert ev.progress.records[1][0].reason is not None
    assert len(sink.rows) == 6
    assert sink.writes < 6  # finishes in one tick share one write
    assert isinstance(seen[-1], EvaluationFinished)


async def test_deadline_errors_and_cancels_the_attempt() -> None:
    target = ScriptedTarget()
    cases = [case("hangs", "hang", "x"), case("fine", "x", "x")]
    ev = Evaluation("ev_t", cases, settings(attempts=2, timeout=0.2, concurrency=4), target)
    assert await asyncio.wait_for(ev.run(), 5) == "done"
    hangs, fine = ev.progress.all_figures()
    assert (hangs.errored, fine.passed) == (2, 2)
    record = ev.progress.records[0][0]
    assert record.status == "timed_out" and record.outcome is Outcome.ERRORED
    assert "0.2 s deadline" in (record.error or "")
    assert len(target.cancelled) == 2


async def test_a_case_timeout_overrides_the_evaluations() -> None:
    slow = Case("slow", "hang", None, None, timeout=0.2)
    ev = Evaluation("ev_t", [slow], settings(attempts=1, timeout=3600), ScriptedTarget())
    assert await asyncio.wait_for(ev.run(), 5) == "done"
    [[record]] = ev.progress.records
    assert record.status == "timed_out"
    assert "0.2 s deadline" in (record.error or "")


async def test_a_check_in_flight_is_cancelled_with_the_runs(tmp_path: Path) -> None:
    started = tmp_path / "started"
    code = f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(60)"
    spec = {"command": [sys.executable, "-c", code]}
    hanging = Case("judged", "x", compile_check(spec, "judged", tmp_path), spec)
    ev = Evaluation("ev_t", [hanging], settings(attempts=1), ScriptedTarget())
    runner = asyncio.create_task(ev.run())
    while not started.exists():
        await asyncio.sleep(0.01)
    ev.cancel()
    assert await asyncio.wait_for(runner, 5) == "cancelled"
    assert ev.progress.finished == 0  # not judged, not counted
    assert ev.progress.in_flight == 0


async def test_user_cancel_withdraws_the_attempts_in_flight() -> None:
    """Withdrawn: stored as such before their Runs are cancelled, counted in no figure."""
    target = ScriptedTarget()
    sink = ListSink()
    cases = [case(f"c{i}", "hang", "x") for i in range(5)]
    ev = Evaluation("ev_t", cases, settings(attempts=2, concurrency=2), target, sink=sink)
    runner = asyncio.create_task(ev.run())
    while ev.progress.in_flight < 2:
        await asyncio.sleep(0.005)
    ev.cancel()
    assert sink.writes == 1  # the withdrawals are on disk before any Run is cancelled
    assert await asyncio.wait_for(runner, 5) == "cancelled"
    assert target.calls == 2 and len(target.cancelled) == 2 and target.left_running == 0
    assert ev.progress.finished == 0 and ev.progress.in_flight == 0
    assert [f.n for f in ev.progress.all_figures()] == [0] * 5
    assert {r.outcome for r in sink.rows} == {Outcome.WITHDRAWN}
    assert sorted(r.key for r in sink.rows) == sorted(target.cancelled)
    assert all(cell == Cell.PENDING for row in ev.progress.cells for cell in row)


class FullSink(ListSink):
    def write(self, records: Sequence[AttemptRecord]) -> None:
        raise RunError("the disk is full")


async def test_cancel_that_cannot_store_withdrawals_leaves_the_runs_running() -> None:
    """Not kept as withdrawn, so not cancelled: a resume replays their real Turns."""
    target = ScriptedTarget()
    cases = [case(f"c{i}", "hang", "x") for i in range(3)]
    ev = Evaluation("ev_t", cases, settings(attempts=1, concurrency=2), target, sink=FullSink())
    runner = asyncio.create_task(ev.run())
    while ev.progress.in_flight < 2:
        await asyncio.sleep(0.005)
    ev.cancel()
    assert await asyncio.wait_for(runner, 5) == "failed"
    assert ev.error == "the disk is full"
    assert target.left_running == 2 and ev.progress.finished == 0


async def test_a_full_disk_leaves_the_runs_in_flight_running() -> None:
    """After a store failure, resume must not replay Runs that passk-tui itself cancelled."""
    target = ScriptedTarget()
    cases = [case("quick", "x", "x"), case("slow", "hang", "x")]
    ev = Evaluation("ev_t", cases, settings(attempts=1, concurrency=2), target, sink=FullSink())
    assert await asyncio.wait_for(ev.run(), 5) == "failed"
    assert ev.error == "the disk is full"
    assert target.cancelled == [idempotency_key("ev_t", "slow", 1)] and target.left_running == 1


class KeptFirstTarget(ScriptedTarget):
    """Notes each request whose attempt the sink did not yet keep as in flight."""

    def __init__(self, sink: ListSink, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.sink = sink
        self.unkept: list[str] = []

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        if attempt.key not in self.sink.in_flight:
            self.unkept.append(attempt.key)
        return await super().execute(attempt, deadline, notify)


async def test_every_run_is_kept_in_flight_before_it_is_requested_one_write_a_tick() -> None:
    sink = ListSink()
    target = KeptFirstTarget(sink, delay=0.01)
    cases = [case(f"c{i}", "x", "x") for i in range(4)]
    ev = Evaluation("ev_t", cases, settings(attempts=3, concurrency=4), target, sink=sink)
    assert await ev.run() == "done"
    assert target.calls == 12 and target.unkept == []
    assert sink.in_flight == set()  # each record took its attempt out of flight
    assert sink.starts < 12  # attempts starting in one tick share one write


class UnstartableSink(ListSink):
    def start(self, attempts: Sequence[PlannedAttempt]) -> None:
        raise RunError("the disk is full")


async def test_attempts_that_cannot_be_kept_in_flight_are_never_requested() -> None:
    target = ScriptedTarget()
    cases = [case(f"c{i}", "x", "x") for i in range(3)]
    ev = Evaluation(
        "ev_t", cases, settings(attempts=2, concurrency=2), target, sink=UnstartableSink()
    )
    assert await asyncio.wait_for(ev.run(), 5) == "failed"
    assert ev.error == "the disk is full"
    assert target.calls == 0 and ev.progress.finished == 0 and ev.progress.in_flight == 0


async def test_run_error_stops_everything_and_keeps_only_finished() -> None:
    target = ScriptedTarget(delay=0.05, fail_on=5)
    sink = ListSink()
    cases = [case(f"c{i}", "x", "x") for i in range(4)]
    ev = Evaluation("ev_t", cases, settings(attempts=3, concurrency=2), target, sink=sink)
    assert await ev.run() == "failed"
    assert ev.error == "stack refused the key (401)"
    assert len(sink.rows) == ev.progress.finished < 12
    assert all(r.outcome is Outcome.PASSED for r in sink.rows)  # nothing recorded as cancelled
    assert ev.progress.in_flight == 0


async def test_retry_notice_becomes_an_event() -> None:
    events: list[Event] = []
    ev = Evaluation(
        "ev_t",
        [case("r", "retry", "retry")],
        settings(attempts=1, k=1),
        ScriptedTarget(),
        on_event=events.append,
    )
    await ev.run()
    retries = [e for e in events if isinstance(e, AttemptRetrying)]
    assert [(e.reason, e.delay) for e in retries] == [("503 unavailable", 0.01)]
    assert ev.progress.figures(0).passed == 1


async def test_resume_runs_only_what_is_missing() -> None:
    first = Evaluation("ev_r", [case("a", "x", "x")], settings(), ScriptedTarget())
    await first.run()
    kept = [r for r in first.progress.records[0] if r.attempt != 3]
    target = ScriptedTarget()
    started: list[Event] = []
    again = Evaluation(
        "ev_r", [case("a", "x", "x")], settings(), target, previous=kept, on_event=started.append
    )
    await again.run()
    planned = [e.attempt for e in started if isinstance(e, AttemptStarted)]
    assert [p.attempt for p in planned] == [3]
    assert planned[0].key == idempotency_key("ev_r", "a", 3)
    assert target.calls == 1 and again.progress.figures(0).n == 3
