"""The path of one attempt through an evaluation: kept in flight, run, judged, recorded.

Finished attempts are gathered for the rest of the current loop tick, written
to the sink in one transaction, and only then counted and emitted: nothing
is shown that is not kept, and a burst of finishes costs one write. Attempts
starting are gathered the same way and kept as in flight before any of their
Runs is requested (or counted as running), so a kill at any moment leaves
each Run the stack may have started recorded or in flight, to be replayed
under its key.

Two objects an ``Evaluation`` has: an ``AttemptRunner`` (an attempt's way to its Turn and
verdict) and a ``Recorder`` (what is stored, counted and shown, and when). The records
they keep are built by plain functions (``finished_record``, ``withdrawal``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from passk_tui.core.attempt import AttemptRecord, Outcome, Turn, Verdict, Vote
from passk_tui.core.checks.panel import Judges, Panel, close_panel, open_panel
from passk_tui.core.errors import RunError
from passk_tui.core.inputs.bounds import bounded_output, bounded_usage
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.conversation import TranscriptLog, UserAgents, play
from passk_tui.core.run.events import AttemptFinished, AttemptRetrying, AttemptStarted, Event
from passk_tui.core.run.policy import SamplingPolicy, Slot
from passk_tui.core.run.target import RetryNotice, Target
from passk_tui.core.stats.progress import Cell, Progress
from passk_tui.core.transcript import Transcript


class RecordSink(Protocol):
    """Where attempts are kept: in flight before their Run is requested, finished before
    anyone is shown them (the store)."""

    def start(self, attempts: Sequence[PlannedAttempt]) -> None:
        """Durably keep ``attempts`` as in flight; raise RunError when that is impossible."""

    def write(self, records: Sequence[AttemptRecord]) -> None:
        """Durably keep ``records``, each no longer in flight; raise RunError when impossible."""


class Recorder:
    """What an evaluation keeps of its attempts, and when: stored before shown.

    Finished attempts are gathered for the rest of the loop tick, written to the sink in
    one transaction, and only then counted, told to the policy and emitted. An attempt
    that ends without a record is handed back (its cell pending again, the policy told).
    """

    def __init__(
        self,
        sink: RecordSink | None,
        progress: Progress,
        policy: SamplingPolicy,
        emit: Callable[[Event], None],
        wake: Callable[[], None],
        fail: Callable[[str], None],
    ) -> None:
        self.sink = sink
        self._progress = progress
        #: Told of each attempt that lands or is dropped (the evaluation's, replaceable).
        self.policy = policy
        self._emit = emit
        #: Wakes the pool's idle workers: a landed or dropped attempt may free more work.
        self._wake = wake
        #: Ends the evaluation as failed (a batch could not be stored).
        self._fail = fail
        self._unsaved: list[AttemptRecord] = []
        self._flush_scheduled = False

    def keep(self, record: AttemptRecord) -> None:
        """A finished attempt, to be written with the others that finish this loop tick."""
        self._unsaved.append(record)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Store the gathered records, then count and emit them: stored before shown."""
        self._flush_scheduled = False
        batch, self._unsaved = self._unsaved, []
        if not batch:
            return
        if self.sink is not None:
            try:
                self.sink.write(batch)
            except RunError as exc:
                for record in batch:
                    self.drop(record)
                self._fail(str(exc))
                return
        self._progress.add(batch)
        for record in batch:
            self.policy.landed(record)
        self._wake()
        for record in batch:
            self._emit(AttemptFinished(record))

    def drop(self, attempt: PlannedAttempt | AttemptRecord) -> None:
        """An attempt ends without a record: its cell back to pending, the policy told."""
        self._progress.release(attempt.case_index, attempt.attempt)
        self.policy.dropped(Slot(attempt.case_index, attempt.attempt))
        self._wake()


class AttemptRunner:
    """The path of one attempt: kept in flight, run on the target within its deadline, judged,
    then handed to the recorder (or dropped unrecorded).

    It holds what a stop reaches: the attempts' Run tasks, and the judging tasks of checks
    that may wait (``in_flight``), and the tasks a user's stop withdrew (``withdrawn``).
    """

    def __init__(
        self,
        settings: Settings,
        target: Target,
        progress: Progress,
        recorder: Recorder,
        emit: Callable[[Event], None],
        fail: Callable[[str], None],
    ) -> None:
        self._settings = settings
        self._target = target
        self._progress = progress
        self._recorder = recorder
        self._emit = emit
        #: Ends the evaluation as failed (the target raised RunError, or a start was not kept).
        self._fail = fail
        #: The judge agents a `judge` check asks (None: the cases have no judge, or none was made).
        self.judges: Judges | None = None
        #: Where a case's simulated user is found (the agents file); None: nowhere.
        self.users: UserAgents | None = None
        #: The attempts' Run tasks, and the judging tasks of checks that may wait: what a stop reaches.
        self.in_flight: dict[asyncio.Task[Any], PlannedAttempt] = {}
        #: In-flight attempts the user's stop withdrew: their ends are not recorded again.
        self.withdrawn: set[asyncio.Task[Any]] = set()
        #: Attempts waiting to be kept as in flight, each with what its Run waits on.
        self._unstarted: list[tuple[PlannedAttempt, asyncio.Future[None]]] = []

    async def attempt(self, planned: PlannedAttempt) -> None:
        """Run ``planned`` to its record (handed to the recorder), or drop it unrecorded."""
        loop = asyncio.get_running_loop()
        timeout = planned.case.timeout or self._settings.timeout
        started = time.time()
        deadline = loop.time() + timeout
        last_retry: list[str] = []
        retries = 0  # kept on the record: what the attempt met on the way

        def notify(reason: str, delay: float) -> None:
            nonlocal retries
            retries += 1
            last_retry[:] = [reason]
            self._progress.mark(planned.case_index, planned.attempt, Cell.RETRYING)
            self._emit(AttemptRetrying(planned, reason, delay))

        log = TranscriptLog()
        task = loop.create_task(self._run(planned, deadline, notify, log))
        self.in_flight[task] = planned
        try:
            await asyncio.wait((task,), timeout=max(0.0, deadline - loop.time()))
        finally:
            del self.in_flight[task]
            timed_out = not task.done()
            if timed_out:
                task.cancel()
                await asyncio.wait((task,))
        if task in self.withdrawn:
            self.withdrawn.discard(task)
            self._recorder.drop(planned)
            return
        turn = self._turn_of(task, timed_out, timeout, last_retry)
        if turn is None:
            self._recorder.drop(planned)
            return
        self._progress.run_ended(planned.case_index, planned.attempt)
        check = planned.case.check
        transcript = log.transcript() if log.kept else None
        if turn.status != "completed" or check is None or not check.waits:
            verdict, votes = await self._judge(planned, turn, deadline, log)
        else:
            # A check that may wait (a process, a slow regex, a judge) is withdrawn with the Runs.
            judging = loop.create_task(self._judge(planned, turn, deadline, log))
            self.in_flight[judging] = planned
            try:
                verdict, votes = await judging
            except asyncio.CancelledError:
                if asyncio.current_task().cancelling():  # type: ignore[union-attr]
                    raise
                self.withdrawn.discard(judging)
                self._recorder.drop(planned)
                return
            finally:
                self.in_flight.pop(judging, None)
        self._recorder.keep(
            finished_record(planned, turn, verdict, started, retries, transcript, votes)
        )
        # Let the record's write (scheduled just now) run before this worker asks the policy
        # for its next attempt: the policy then knows of this one (a budget, what it cost).
        await asyncio.sleep(0)

    async def _run(
        self, planned: PlannedAttempt, deadline: float, notify: RetryNotice, log: TranscriptLog
    ) -> Turn:
        """The attempt's Runs (one, or a conversation's), once the sink keeps it as in flight.

        Inside the attempt's task, so that a stop or a failure before then withdraws
        or halts it like any attempt in flight, and its Run is never requested.
        """
        if self._recorder.sink is not None:
            await self._started(planned, self._recorder.sink)
        self._progress.mark(planned.case_index, planned.attempt, Cell.RUNNING)
        self._emit(AttemptStarted(planned))
        return await play(self._target, planned, deadline, notify, log, self.users)

    def _started(self, planned: PlannedAttempt, sink: RecordSink) -> asyncio.Future[None]:
        """Done once ``planned`` is kept as in flight, with the others starting this loop tick."""
        loop = asyncio.get_running_loop()
        kept = loop.create_future()
        if not self._unstarted:
            loop.call_soon(self._keep_started, sink)
        self._unstarted.append((planned, kept))
        return kept

    def _keep_started(self, sink: RecordSink) -> None:
        """One write for the attempts gathered; those stopped meanwhile are never requested."""
        batch = [(planned, kept) for planned, kept in self._unstarted if not kept.done()]
        self._unstarted = []
        try:
            sink.start([planned for planned, _ in batch])
        except RunError as exc:
            for _, kept in batch:
                kept.set_exception(exc)
            return
        for _, kept in batch:
            kept.set_result(None)

    def _turn_of(
        self, task: asyncio.Task[Turn], timed_out: bool, timeout: float, last_retry: list[str]
    ) -> Turn | None:
        """The Turn to record, or None when the attempt must stay unrecorded (evaluation failed)."""
        exc = None if task.cancelled() else task.exception()
        if isinstance(exc, RunError):
            # Past the deadline too: the target found the stack had stopped answering.
            self._fail(str(exc))
            return None
        if timed_out:
            error = f"no Turn within the {timeout:g} s deadline"
            if last_retry:
                error += f"; last error: {last_retry[0]}"
            return Turn("timed_out", error=error)
        if task.cancelled():
            return None  # the evaluation failed, or it was stopped from outside
        if exc is not None:
            return Turn("failed", error=f"{type(exc).__name__}: {exc}")
        return task.result()

    async def _judge(
        self, planned: PlannedAttempt, turn: Turn, deadline: float, log: TranscriptLog
    ) -> tuple[Verdict | None, tuple[Vote, ...]]:
        """The check's verdict on a completed Turn, bounded by the deadline (None for errored
        ones), and the judge's votes on it: a `judge` check asks them through the attempt's
        panel, open while the check runs."""
        check = planned.case.check
        if turn.status != "completed":
            return None, ()
        if turn.wrong is not None:  # the agent's own test said no: nothing left to judge
            return Verdict(False, turn.wrong), ()
        if check is None:
            return Verdict(True), ()
        panel = Panel(planned, planned.case.input, self.judges) if self.judges is not None else None
        token = open_panel(panel)
        try:
            verdict = await check.judge(turn.output, deadline, log.transcript())
        finally:
            close_panel(token)
        return verdict, tuple(panel.votes) if panel is not None else ()


def withdrawal(planned: PlannedAttempt) -> AttemptRecord:
    """The stored trace of an attempt the user's stop withdrew (counted nowhere)."""
    now = time.time()
    return AttemptRecord(
        case_index=planned.case_index,
        case=planned.case.name,
        attempt=planned.attempt,
        key=planned.key,
        outcome=Outcome.WITHDRAWN,
        status="withdrawn",
        output=None,
        reason=None,
        error="withdrawn: the evaluation was stopped while this attempt ran",
        run_id=None,
        turn_id=None,
        started=now,
        ended=now,
        retake=planned.retake,
    )


def finished_record(
    planned: PlannedAttempt,
    turn: Turn,
    verdict: Verdict | None,
    started: float,
    retries: int,
    transcript: Transcript | None = None,
    votes: tuple[Vote, ...] = (),
) -> AttemptRecord:
    """The stored record of an attempt that ran to a Turn (judged, or errored)."""
    error = turn.error
    if verdict is None:
        outcome = Outcome.ERRORED
    elif verdict.errored:
        outcome, error, verdict = Outcome.ERRORED, verdict.reason, None
    else:
        outcome = Outcome.PASSED if verdict.passed else Outcome.WRONG
    # The check judged the whole answer; what is kept (and shown) is bounded.
    output, output_size = bounded_output(turn.output)
    return AttemptRecord(
        case_index=planned.case_index,
        case=planned.case.name,
        attempt=planned.attempt,
        key=planned.key,
        outcome=outcome,
        status=turn.status,
        output=output,
        reason=verdict.reason if verdict else None,
        error=error,
        run_id=turn.run_id,
        turn_id=turn.turn_id,
        started=started,
        ended=time.time(),
        usage=bounded_usage(turn.usage),
        output_size=output_size,
        retake=planned.retake,
        retries=retries,
        finish_reason=turn.finish_reason,
        node=turn.node,
        # Bounded as the answer is: what is kept (and shown) of a runaway conversation.
        transcript=None if transcript is None else transcript.bounded(),
        votes=votes,
    )
