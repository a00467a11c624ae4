"""An evaluation, or several interleaved in one pool: ask each policy for attempts, run them.

Front ends never decide an outcome: they read ``Progress`` and the events.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, Literal

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.checks.panel import Judges
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_flow import AttemptRunner, Recorder, RecordSink, withdrawal
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.budget import BUDGET_SPENT
from passk_tui.core.run.cases import Case
from passk_tui.core.run.conversation import UserAgents
from passk_tui.core.run.events import EvaluationFinished, Event
from passk_tui.core.run.policy import FixedPolicy, Pause, SamplingPolicy
from passk_tui.core.run.pool import Pool
from passk_tui.core.run.target import LEAVE_RUNNING, Target
from passk_tui.core.stats.progress import Progress

Status = Literal["done", "cancelled", "failed"]


class Evaluation:
    """Runs one evaluation of ``cases`` on ``target`` with ``settings``: its start, stop and end.

    It has an attempt runner (each attempt kept in flight, run, judged) and a recorder
    (stored before shown, then counted); it decides when to start, stop and end.
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
        policy: SamplingPolicy | None = None,
        users: UserAgents | None = None,
    ) -> None:
        previous = list(previous)
        self.evaluation_id = evaluation_id
        self.cases = list(cases)
        self.settings = settings
        self.target = target
        # Which attempt to start next; by default every case 1..attempts, minus ``previous``.
        policy = policy or FixedPolicy(len(self.cases), settings.attempts, previous)
        self.progress = Progress([c.name for c in self.cases], settings.attempts, settings.k)
        self.progress.add(previous)
        self.progress.runs_bound = policy.runs_bound
        #: What the agent resolved to, as stored: a recorded evaluation's (a bare one keeps none).
        self.definition: Definition | None = None
        #: One line each, for stderr or a notification: the agent's definition changed since
        #: it was stored (a recorded evaluation's; a bare one has none).
        self.warnings: list[str] = []
        self.status: Status | None = None
        self.error: str | None = None
        #: Why it ended as it did, beside its status: ``budget spent`` (None: nothing to add).
        self.status_reason: str | None = None
        self._emit = on_event or (lambda event: None)
        self._pool = Pool(settings.concurrency)
        # The pool is looked up at each wake: an interleaved run replaces it (``share_pool``).
        self._recorder = Recorder(
            sink, self.progress, policy, self._emit, lambda: self._pool.wake(), self.fail
        )
        self._runner = AttemptRunner(
            settings, target, self.progress, self._recorder, self._emit, self.fail
        )
        self._runner.users = users
        self._cancelled = False
        self._prepared = False

    @property
    def policy(self) -> SamplingPolicy:
        """Which attempt to start next: what its workers ask, and what each landed one is told."""
        return self._recorder.policy

    @policy.setter
    def policy(self, policy: SamplingPolicy) -> None:
        self._recorder.policy = policy

    @property
    def judges(self) -> Judges | None:
        """The judge agents a `judge` check asks (None: the cases have no judge, or none was made)."""
        return self._runner.judges

    @judges.setter
    def judges(self, judges: Judges | None) -> None:
        self._runner.judges = judges

    @property
    def users(self) -> UserAgents | None:
        """Where a case's simulated user is found (the agents file); None: nowhere."""
        return self._runner.users

    @users.setter
    def users(self, users: UserAgents | None) -> None:
        self._runner.users = users

    @property
    def pool(self) -> Pool:
        """The workers its attempts run on (shared, when interleaved with others)."""
        return self._pool

    def share_pool(self, pool: Pool) -> None:
        """Run on ``pool`` instead of its own: interleaved with the evaluations that use it."""
        self._pool = pool

    @property
    def cancelled(self) -> bool:
        """The user's stop reached it (its status settles as cancelled unless it failed)."""
        return self._cancelled

    def next_attempt(self) -> PlannedAttempt | Pause:
        """The policy's next attempt, with its key; or why there is none."""
        slot = self._recorder.policy.next()  # not the property: this runs once per attempt
        if isinstance(slot, Pause):
            return slot
        case = self.cases[slot.case_index]
        return PlannedAttempt.of(
            self.evaluation_id, slot.case_index, case, slot.attempt, slot.retake
        )

    async def prepare(self) -> None:
        """Check the target (key, agent, version) before any Run; RunError or InputError propagate.

        A face may call it before showing progress, so that a refusal is one line
        and nothing else; ``run`` calls it when the face did not.
        """
        if not self._prepared:
            await self.target.prepare()
            if self.judges is not None:
                await self.judges.prepare()
            if self.users is not None:
                await self.users.prepare()
            self._prepared = True

    async def run(self) -> Status:
        """Run what is left; return how it ended. RunError from ``prepare`` propagates."""
        (status,) = await Interleaved([self]).run()
        return status

    def begin(self) -> None:
        """This session's run starts (after ``prepare``): a subclass may record its start too."""
        self.progress.begin()

    def release(self) -> None:
        """The run is over, however it ended: let go of what is held (a recorded one: its claim)."""

    def attempt(self, planned: PlannedAttempt) -> Coroutine[Any, Any, None]:
        """Run one attempt it handed out, to its record (or unrecorded, when it is stopped).

        The runner's own coroutine, not one awaiting it: a frame less on every attempt's path.
        """
        return self._runner.attempt(planned)

    def flush(self) -> None:
        """Store, count and show the attempts finished and not yet written."""
        self._recorder.flush()

    def abort(self, error: str) -> None:
        """End as failed with ``error`` without running: the evaluation beside it could not start."""
        self.fail(error)
        self.end()

    def stopped_with_others(self) -> None:
        """The user's stop ended the evaluations it runs beside: it ends cancelled too."""
        self._cancelled = True

    def end(self) -> Status:
        """Settle the status (done unless stopped or failed) and tell the front end."""
        if self.status is None:
            self.status = "cancelled" if self._cancelled else "done"
        if self.status == "done" and self.policy.spent:
            self.status_reason = BUDGET_SPENT
        self._emit(EvaluationFinished(self.status, self.error, self.status_reason))
        return self.status

    def cancel(self) -> None:
        """The user stops: start nothing new; withdraw the attempts in flight and cancel their Runs.

        A withdrawn attempt measured nothing: it is stored as withdrawn (before its
        Run is cancelled, so a stop right after cannot lose that), counted in no
        figure, and run again on resume under its next retake's key. When the
        withdrawals cannot be stored, the evaluation fails instead and their Runs
        are left to end on the stack, so that a resume replays their real Turns
        rather than Turns that passk-tui itself cancelled.
        """
        if self._cancelled or self.status is not None:
            return
        self._cancelled = True
        self._pool.stop()
        live = {
            task: planned for task, planned in self._runner.in_flight.items() if not task.done()
        }
        sink = self._recorder.sink
        if live and sink is not None:
            try:
                sink.write([withdrawal(planned) for planned in live.values()])
            except RunError as exc:
                self.fail(str(exc))
                return
        for task in live:
            self._runner.withdrawn.add(task)
            task.cancel()

    def abandon(self) -> None:
        """Stop at once (a second Ctrl-C): keep what is in, leave the Runs in flight running."""
        self.flush()
        self._halt()

    def _halt(self) -> None:
        """Start nothing new; end the in-flight attempts unrecorded, their Runs left running."""
        self._pool.stop()
        for task in list(self._runner.in_flight):
            task.cancel(LEAVE_RUNNING)

    def fail(self, error: str) -> None:
        """End as failed with ``error``: start nothing new, end the attempts in flight unrecorded."""
        if self.status is None:
            self.status, self.error = "failed", error
        self._halt()


class Interleaved:
    """Evaluations whose attempts take turns in one pool: a slow hour of the stack hurts each alike.

    Each keeps its own policy (fixed or adaptive), target, sink, progress and end; they
    share the first one's pool (its ``--concurrency`` bounds all), whose free workers ask
    each in turn for its next attempt. What ends one ends all: the user's stop cancels
    every one; when one fails, the others start nothing new, keep what is in flight and
    fail too, so that a resume continues them together.
    """

    def __init__(self, evaluations: Sequence[Evaluation]) -> None:
        self.evaluations = list(evaluations)
        self._pool = self.evaluations[0].pool
        for evaluation in self.evaluations[1:]:
            evaluation.share_pool(self._pool)
        self._turn = 0
        #: The evaluation whose own failure ended the others, once the run is over.
        self.cause: Evaluation | None = None

    async def prepare(self) -> None:
        """Check every target before any Run; when one refuses, the others end failed unrun."""
        for evaluation in self.evaluations:
            try:
                await evaluation.prepare()
            except (InputError, RunError) as exc:
                for other in self.evaluations:
                    if other is not evaluation:
                        other.abort(
                            f"not run: evaluation {evaluation.evaluation_id} could not: {exc}"
                        )
                raise

    async def run(self) -> list[Status]:
        """Run what is left of each; how each ended, in order. RunError from ``prepare`` propagates."""
        try:
            await self.prepare()
            for evaluation in self.evaluations:
                evaluation.begin()
            try:
                await self._pool.run(self._next, self._attempt)
            finally:
                for evaluation in self.evaluations:
                    evaluation.flush()
            self._end_together()
            return [evaluation.end() for evaluation in self.evaluations]
        finally:
            for evaluation in self.evaluations:
                evaluation.release()

    def cancel(self) -> None:
        """The user stops: every evaluation withdraws its attempts in flight (``Evaluation.cancel``)."""
        for evaluation in self.evaluations:
            evaluation.cancel()

    def abandon(self) -> None:
        """Stop at once (a second Ctrl-C): each keeps what is in and leaves its Runs running."""
        for evaluation in self.evaluations:
            evaluation.abandon()

    async def aclose(self) -> None:
        """Close every target (the cancels still under way go out first)."""
        for evaluation in self.evaluations:
            await evaluation.target.aclose()
            if evaluation.judges is not None:
                await evaluation.judges.aclose()
            if evaluation.users is not None:
                await evaluation.users.aclose()

    def _next(self) -> tuple[Evaluation, PlannedAttempt] | Pause:
        """The next attempt of the evaluation whose turn it is, else of the next one that has one."""
        waiting = False
        count = len(self.evaluations)
        for step in range(count):
            evaluation = self.evaluations[(self._turn + step) % count]
            item = evaluation.next_attempt()
            if isinstance(item, PlannedAttempt):
                self._turn = (self._turn + step + 1) % count
                return evaluation, item
            waiting = waiting or item is Pause.WAIT
        return Pause.WAIT if waiting else Pause.DONE

    async def _attempt(self, item: tuple[Evaluation, PlannedAttempt]) -> None:
        evaluation, planned = item
        await evaluation.attempt(planned)

    def _end_together(self) -> None:
        """The pool stopped for all: an evaluation still open ends as the one that stopped it did."""
        failed = self.cause = next((e for e in self.evaluations if e.status == "failed"), None)
        stopped = any(e.cancelled for e in self.evaluations)
        for evaluation in self.evaluations:
            if evaluation.status is not None:
                continue
            if failed is not None:
                evaluation.fail(
                    f"stopped with evaluation {failed.evaluation_id}, which failed: {failed.error}"
                )
            elif stopped:
                evaluation.stopped_with_others()
