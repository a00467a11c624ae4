"""A stored evaluation continued or extended under its own id, so every attempt keeps its key."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.inputs.file_digests import sha256_of
from passk_tui.core.run.attempt_keys import PlannedAttempt, check_planned_size
from passk_tui.core.run.cases import Case
from passk_tui.core.run.events import Event
from passk_tui.core.run.sampling import sampling_policy
from passk_tui.core.run.target import RetryNotice, Target
from passk_tui.core.text.decimals import fixed
from passk_tui.evaluations.judging import JudgeCallables, judges_for
from passk_tui.evaluations.lookups import load_suite, make_target
from passk_tui.evaluations.recorded import (
    RecordedEvaluation,
    TargetFactory,
    stored_settings,
)
from passk_tui.evaluations.resume_rules import (
    check_rule_kept,
    check_same_definition,
    ran_nothing,
    refuse_callable,
    refuse_imported,
    resumed_settings,
)
from passk_tui.store import Store, StoredEvaluation
from passk_tui.targets.conversing.users import simulated_users

#: How long a stack keeps idempotency keys (runs-api.md): past it, a replay is not guaranteed.
KEY_LIFETIME = 24 * 3600


@dataclass(frozen=True)
class Resumed:
    """A stored evaluation ready to continue: run ``evaluation`` unless ``finished``."""

    evaluation: RecordedEvaluation
    stored: StoredEvaluation
    finished: bool
    """Nothing is left to run: show the stored results (running it only marks it done)."""
    warnings: list[str] = field(default_factory=list)
    """One line each, for stderr or a notification: a changed cases file, expired keys."""

    @property
    def shown_only(self) -> bool:
        """Done with every attempt in: resuming it only shows it."""
        return self.stored.status == "done" and self.finished


def resume_evaluation(
    ref: str,
    key: str | None,
    changes: Mapping[str, Any] | None = None,
    on_event: Callable[[Event], None] | None = None,
    *,
    store: Store | None = None,
    target_for: TargetFactory | None = None,
    judges: JudgeCallables | None = None,
) -> Resumed:
    """Continue the stored evaluation ``ref`` (an id, a prefix of one, or ``last``).

    ``changes`` holds settings given anew: the running ones (concurrency,
    timeout, require, stack, agents_path) replace the stored values; a measured
    one (agent, version, cases_path, attempts, k, completion_only) that differs
    from the stored value is refused with InputError. The stored cases are used
    as they were loaded, with the original evaluation id, so every attempt keeps
    its idempotency key. ``target_for`` builds the target of a Python callable, which
    only the API can give again (``--resume`` of one is refused, ``refuse_callable``).
    """
    store = store if store is not None else Store.open()
    stored = store.load(store.resolve(ref))
    refuse_imported(stored)
    forgotten = not stored.cases
    if forgotten:
        stored = replace(stored, cases=_cases_again(stored))
    settings = resumed_settings(stored, dict(changes or {}))
    check_planned_size(len(stored.cases), settings.attempts)
    if settings.max_attempts is not None:
        check_planned_size(len(stored.cases), settings.max_attempts, "--max-attempts")
    policy = sampling_policy(
        settings,
        len(stored.cases),
        stored.records,
        stored.retakes(),
        stored.in_flight,
        runs_started=stored.runs_started,
    )
    check_rule_kept(stored, settings, changes or {}, policy.most_left())
    finished = policy.most_left() == 0
    warnings = [] if finished else _warnings(stored)
    claim = store.claim(stored.id)
    made_judges = None
    try:
        if finished:
            target: Target = NothingToRun(stored.definition or {})
        else:
            made_judges = judges_for(stored.cases, settings, store, stored.id, judges)
            if target_for is not None:
                target = target_for(stored.id, settings)
            else:
                refuse_callable(stored)
                target = make_target(settings, key, stored.id)
            check_same_definition(stored, target.definition, changes or {})
            store.reopen(stored.id, stored_settings(settings, agents_file=target_for is None))
            if ran_nothing(stored) and stored.definition != target.definition:
                store.keep_definition(stored.id, target.definition)
                stored = replace(stored, definition=target.definition)
            if forgotten:
                store.keep_cases(stored.id, stored.cases)
    except BaseException:
        claim.release()
        raise
    evaluation = RecordedEvaluation(
        stored.id,
        stored.cases,
        settings,
        target,
        store=store,
        claim=claim,
        previous=stored.records,
        on_event=on_event,
        policy=policy,
        stored_reasons=stored.stop_reasons,
        definition=stored.definition,
    )
    evaluation.judges = made_judges
    if finished:
        evaluation.status_reason = stored.status_reason  # shown as it ended
    else:
        evaluation.users = simulated_users(stored.cases, settings.agents_path, settings.concurrency)
    return Resumed(evaluation, stored, finished, warnings)


def extend_evaluation(
    ref: str,
    key: str | None,
    *,
    attempts: int | None = None,
    max_attempts: int | None = None,
    on_event: Callable[[Event], None] | None = None,
    store: Store | None = None,
) -> Resumed:
    """More attempts for a stored evaluation: every case up to ``attempts``, or adaptively
    up to ``max_attempts`` (``--resume ID --attempts N`` / ``--max-attempts N``).

    Fewer than stored is InputError. Keys are derived as always, so nothing recorded
    runs again; ``Resumed.evaluation.policy.most_left()`` is the most Runs it may start.
    """
    changes: dict[str, Any] = {}
    if attempts is not None:
        changes["attempts"] = attempts
    if max_attempts is not None:
        changes["max_attempts"] = max_attempts
    return resume_evaluation(ref, key, changes, on_event, store=store)


def _cases_again(stored: StoredEvaluation) -> list[Case]:
    """The cases of an evaluation that failed to start (its copy was not kept), from its
    file, which must be unchanged: what is measured must stay what it was."""
    path = stored.settings.cases_path
    try:
        unchanged = sha256_of(path) == stored.cases_sha256
    except InputError:
        unchanged = False
    if not unchanged:
        raise InputError(
            f"--resume {stored.id}: it failed before any attempt ran, so its cases were not "
            f"kept, and {path} is gone or changed; start a new evaluation"
        )
    return load_suite(stored.settings)


def _warnings(stored: StoredEvaluation) -> list[str]:
    warnings: list[str] = []
    path = Path(stored.settings.cases_path)
    if not path.is_file():
        warnings.append(f"{path} no longer exists: the stored cases are used")
    else:
        try:
            changed = sha256_of(path) != stored.cases_sha256
        except InputError:
            changed = True
        if changed:
            warnings.append(
                f"{path} changed since evaluation {stored.id} began: the file is not used, "
                "its stored cases are (start a new evaluation to measure the new ones)"
            )
    age = time.time() - stored.created
    if stored.settings.stack and age > KEY_LIFETIME:
        warnings.append(
            f"evaluation {stored.id} began {fixed(age / 3600, 0)} h ago and the stack keeps "
            "idempotency keys for 24 h: attempts that were in flight may run again"
        )
    return warnings


class NothingToRun:
    """The target of an evaluation with every attempt recorded: asks for no key, runs nothing;
    its definition is the stored one (empty when stored before definitions were), never read."""

    def __init__(self, definition: Definition) -> None:
        self.definition = definition

    async def prepare(self) -> None:
        return None

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        raise RuntimeError("a finished evaluation has nothing to run")

    async def aclose(self) -> None:
        return None
