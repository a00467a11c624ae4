"""An evaluation: plan the attempts, run them through the pool, classify, store, emit.

Front ends never decide an outcome: they read ``Progress`` and the events.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, Protocol

from passk_tui.core.attempt import AttemptRecord, Outcome, Turn, Verdict
from passk_tui.core.cases import Case
from passk_tui.core.errors import RunError
from passk_tui.core.events import (
    AttemptFinished,
    AttemptRetrying,
    AttemptStarted,
    EvaluationFinished,
    Event,
)
from passk_tui.core.plan import PlannedAttempt, plan_attempts
from passk_tui.core.pool import Pool
from passk_tui.core.progress import Cell, Progress
from passk_tui.core.settings import Settings
from passk_tui.targets.base import Target

Status = Literal["done", "cancelled", "failed"]


class RecordSink(Protocol):
    """Where finished attempts go before anyone is shown them (the store)."""

    def write(self, records: Sequence[AttemptRecord]) -> None:
        """Durably keep ``records``; raise RunError when that is impossible."""


class Evaluation:
    """Runs one evaluation of ``cases`` on ``target`` with ``settings``.

    Finished attempts are gathered for the rest of the current loop tick, written
    to the sink in one transaction, and only then counted and emitted: nothing
    is shown that is not kept, and a burst of finishes costs one write.
    """

    def __init__(
        self,
        evaluation_id: str,
        cases: Sequence[Case],
        settings: Settings,
        target: Target,
        *,
        sink: RecordSink | None = None,
        previous: Iterable[AttemptRecord] = (),
        on_event: Callable[[Event], None] | None = None,
    ) -> None:
        self.evaluation_id = evaluation_id
        self.cases = list(cases)
        self.settings = settings
        self.target = target
        self.progress = Progress([c.name for c in self.cases], settings.attempts, settings.k)
        self.progress.add(previous)
        self.status: Status | None = None
        self.error: str | None = None
        self._sink = sink
        self._emit = on_event or (lambda event: None)
        self._pool = Pool(settings.concurrency)
        self._in_flight: set[asyncio.Task[Turn] | asyncio.Task[Verdict | None]] = set()
        self._unsaved: list[AttemptRecord] = []
        self._flush_scheduled = False
        self._cancelled = False
        self._prepared = False

    def planned(self) -> list[PlannedAttempt]:
        """The attempts still to run: every (case, attempt) without a record."""
        done = frozenset(
            (r.case_index, r.attempt) for records in self.progress.records for r in records
        )
        return plan_attempts(self.evaluation_id, self.cases, self.settings.attempts, done)

    async def prepare(self) -> None:
        """Check the target (key, agent, version) before any Run; RunError or InputError propagate.

        A face may call it before showing progress, so that a refusal is one line
        and nothing else; ``run`` calls it when the face did not.
        """
        if not self._prepared:
            await self.target.prepare()
            self._prepared = True

    async def run(self) -> Status:
        """Run what is left; return how it ended. RunError from ``prepare`` propagates."""
        await self.prepare()
        try:
            await self._pool.run(self.planned(), self._attempt)
        finally:
            self._flush()
        if self.status is None:
            self.status = "cancelled" if self._cancelled else "done"
        self._emit(EvaluationFinished(self.status, self.error))
        return self.status

    def cancel(self) -> None:
        """Start nothing new; cancel the Runs in flight (they end errored, ``cancelled``)."""
        self._cancelled = True
        self._halt()

    def _halt(self) -> None:
        self._pool.stop()
        for task in list(self._in_flight):
            task.cancel()

    def _fail(self, error: str) -> None:
        if self.status is None:
            self.status, self.error = "failed", error
        self._halt()

    async def _attempt(self, planned: PlannedAttempt) -> None:
        loop = asyncio.get_running_loop()
        timeout = planned.case.timeout or self.settings.timeout
        started = time.time()
        deadline = loop.time() + timeout
        last_retry: list[str] = []

        def notify(reason: str, delay: float) -> None:
            last_retry[:] = [reason]
            self.progress.mark(planned.case_index, planned.attempt, Cell.RETRYING)
            self._emit(AttemptRetrying(planned, reason, delay))

        self.progress.mark(planned.case_index, planned.attempt, Cell.RUNNING)
        self._emit(AttemptStarted(planned))
        task = loop.create_task(self.target.execute(planned, deadline, notify))
        self._in_flight.add(task)
        try:
            await asyncio.wait((task,), timeout=max(0.0, deadline - loop.time()))
        finally:
            self._in_flight.discard(task)
            timed_out = not task.done()
            if timed_out:
                task.cancel()
                await asyncio.wait((task,))
        turn = self._turn_of(task, timed_out, timeout, last_retry)
        if turn is None:
            self.progress.release(planned.case_index, planned.attempt)
            return
        check = planned.case.check
        if turn.status != "completed" or check is None or not check.waits:
            verdict = await self._judge(planned.case, turn, deadline)
        else:
            # A check that may wait (a process, a slow regex) is cancelled with the Runs.
            judging = loop.create_task(self._judge(planned.case, turn, deadline))
            self._in_flight.add(judging)
            try:
                verdict = await judging
            except asyncio.CancelledError:
                if asyncio.current_task().cancelling():  # type: ignore[union-attr]
                    raise
                self.progress.release(planned.case_index, planned.attempt)  # the user cancelled
                return
            finally:
                self._in_flight.discard(judging)
        self._keep(self._record(planned, turn, verdict, started))

    def _turn_of(
        self, task: asyncio.Task[Turn], timed_out: bool, timeout: float, last_retry: list[str]
    ) -> Turn | None:
        """The Turn to record, or None when the attempt must stay unrecorded (evaluation failed)."""
        if timed_out:
            error = f"no Turn within the {timeout:g} s deadline"
            if last_retry:
                error += f"; last error: {last_retry[0]}"
            return Turn("timed_out", error=error)
        if task.cancelled():
            if self.status == "failed":
                return None
            return Turn("cancelled", error="cancelled by the user")
        exc = task.exception()
        if isinstance(exc, RunError):
            self._fail(str(exc))
            return None
        if exc is not None:
            return Turn("failed", error=f"{type(exc).__name__}: {exc}")
        return task.result()

    async def _judge(self, case: Case, turn: Turn, deadline: float) -> Verdict | None:
        """The check's verdict on a completed Turn, bounded by the deadline; None for errored ones."""
        if turn.status != "completed":
            return None
        if case.check is None:
            return Verdict(True)
        return await case.check.judge(turn.output, deadline)

    def _record(
        self, planned: PlannedAttempt, turn: Turn, verdict: Verdict | None, started: float
    ) -> AttemptRecord:
        if verdict is None:
            outcome = Outcome.ERRORED
        else:
            outcome = Outcome.PASSED if verdict.passed else Outcome.WRONG
        return AttemptRecord(
            case_index=planned.case_index,
            case=planned.case.name,
            attempt=planned.attempt,
            key=planned.key,
            outcome=outcome,
            status=turn.status,
            output=turn.output,
            reason=verdict.reason if verdict else None,
            error=turn.error,
            run_id=turn.run_id,
            turn_id=turn.turn_id,
            started=started,
            ended=time.time(),
            usage=turn.usage,
        )

    def _keep(self, record: AttemptRecord) -> None:
        self._unsaved.append(record)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        """Store the gathered records, then count and emit them: stored before shown."""
        self._flush_scheduled = False
        batch, self._unsaved = self._unsaved, []
        if not batch:
            return
        if self._sink is not None:
            try:
                self._sink.write(batch)
            except RunError as exc:
                for record in batch:
                    self.progress.release(record.case_index, record.attempt)
                self._fail(str(exc))
                return
        self.progress.add(batch)
        for record in batch:
            self._emit(AttemptFinished(record))
