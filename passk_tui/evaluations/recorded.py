"""An evaluation kept in the store as it runs, and what a new or a resumed one stores of itself."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.run.cases import Case
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.run.events import AttemptFinished, EvaluationFinished, Event
from passk_tui.core.run.policy import SamplingPolicy
from passk_tui.core.run.sampling import sampling_policy
from passk_tui.core.run.target import Target
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.store import Store
from passk_tui.store.claims import Claim


class RecordedEvaluation(Evaluation):
    """An Evaluation written through to the store: each batch before it is shown, then its end.

    The end status is stored on ``EvaluationFinished`` before the front end hears
    of it, and as ``failed`` when ``run`` raises before anything ran (a refused
    key, a missing agent). A process that dies leaves ``running`` with no live
    claim, which the store reports as ``interrupted``.
    """

    def __init__(
        self,
        evaluation_id: str,
        cases: Sequence[Case],
        settings: Settings,
        target: Target,
        *,
        store: Store,
        claim: Claim,
        previous: Iterable[AttemptRecord] = (),
        on_event: Callable[[Event], None] | None = None,
        policy: SamplingPolicy | None = None,
        stored_reasons: Mapping[int, StopReason] | None = None,
        definition: Definition | None = None,
        warnings: Sequence[str] = (),
    ) -> None:
        if settings.executor == "ray":  # the `command` checks run on the cluster too
            from passk_tui.targets.ray.checks import place_checks

            place_checks(cases, settings.ray_address)
        self.store = store
        #: The reading last made of it and the Progress version it was made at
        #: (``evaluations.reading``): held here, it goes when the evaluation goes.
        self.kept_reading: tuple[int, Settings, EvaluationReading] | None = None
        #: A one-line StoreError from recording the end, if that failed (the records are safe).
        self.store_error: str | None = None
        self._claim = claim
        self._front = on_event
        super().__init__(
            evaluation_id,
            cases,
            settings,
            target,
            sink=store.sink(evaluation_id),
            previous=previous,
            on_event=self._on_event,
            policy=policy or sampling_policy(settings, len(cases), previous),
        )
        #: What the agent resolved to, as stored (None: an evaluation stored before it was).
        self.definition = definition
        self.warnings = list(warnings)
        #: The stop reasons as the store holds them; written through as the policy's change.
        self._kept_reasons: dict[int, StopReason] = dict(stored_reasons or {})
        reasons = self.policy.stop_reasons
        if reasons is not None:
            self.progress.stop_reasons = reasons

    def _on_event(self, event: Event) -> None:
        if isinstance(event, AttemptFinished):
            self._keep_stop_reasons([event.record.case_index])
        if isinstance(event, EvaluationFinished):
            self._ended(event.status, event.error, reason=event.reason)
        if self._front is not None:
            self._front(event)

    def _keep_stop_reasons(self, case_indexes: Iterable[int]) -> None:
        """Store the stop reasons of these cases that changed: decided, capped, sampled again.

        A record changes only its own case's reason. A reason depends on the records
        alone (``AdaptivePolicy``), so one lost to a kill between the records' write
        and this one is found again on resume.
        """
        reasons, kept = self.progress.stop_reasons, self._kept_reasons
        changed = {i: reasons.get(i) for i in case_indexes if reasons.get(i) != kept.get(i)}
        if not changed:
            return
        self.store.keep_stop_reasons(
            self.evaluation_id, {i: None if r is None else str(r) for i, r in changed.items()}
        )
        for i, reason in changed.items():
            if reason is None:
                kept.pop(i, None)
            else:
                kept[i] = reason

    def _ended(
        self,
        status: str,
        error: str | None,
        before_any_attempt: bool = False,
        reason: str | None = None,
    ) -> None:
        try:
            self.store.finish(self.evaluation_id, status, error, reason)
            if before_any_attempt and not self.progress.finished:
                self.store.forget_cases(self.evaluation_id)
        except (InputError, RunError) as exc:
            self.store_error = str(exc)
        finally:
            self._claim.release()

    async def prepare(self) -> None:
        try:
            await super().prepare()
        except (InputError, RunError) as exc:
            self._ended("failed", str(exc), before_any_attempt=True)
            raise

    def begin(self) -> None:
        super().begin()
        self._keep_stop_reasons(range(len(self.cases)))

    def release(self) -> None:
        # Cancelled from outside (the app quit): the stored status stays running,
        # reported as interrupted once the claim is gone.
        self._claim.release()


#: Builds the target of a Python callable (the API's) for an evaluation id and its settings.
TargetFactory = Callable[[str, Settings], Target]


def stored_settings(settings: Settings, *, agents_file: bool = True) -> Settings:
    """The settings as stored: absolute paths, so a resume works from any folder (a Python
    callable's evaluation has no agents file)."""
    agents_path = settings.agents_path
    if agents_file and not settings.stack:
        from passk_tui.targets.agents_file import find_agents_file

        explicit = Path(agents_path) if agents_path else None
        agents_path = str(find_agents_file(explicit).resolve())
    return replace(
        settings, cases_path=str(Path(settings.cases_path).resolve()), agents_path=agents_path
    )
