"""From settings (or a stored evaluation) to a ready Evaluation kept in the store: the one path both faces take."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from passk_tui import demo
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.run.agent_definition import (
    PYTHON,
    Definition,
    changed_warning,
    same_measure,
)
from passk_tui.core.run.agent_definition import changes as definition_changes
from passk_tui.core.run.attempt import AttemptRecord, Turn
from passk_tui.core.run.attempt_keys import PlannedAttempt, check_planned_size, new_evaluation_id
from passk_tui.core.run.cases import Case
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.run.events import AttemptFinished, EvaluationFinished, Event
from passk_tui.core.run.policy import SamplingPolicy
from passk_tui.core.run.settings import Settings
from passk_tui.core.run.target import RetryNotice, Target
from passk_tui.core.stats.sampling import sampling_policy
from passk_tui.core.stats.stopping import StopReason
from passk_tui.evaluations.cost_settings import PRICES, kept_price, with_local_price
from passk_tui.evaluations.settings_text import load_suite, make_target
from passk_tui.store import Store, StoredEvaluation
from passk_tui.store.claims import Claim

#: How long a stack keeps idempotency keys (runs-api.md): past it, a replay is not guaranteed.
KEY_LIFETIME = 24 * 3600

#: The settings that say what is measured: a resume may not change them.
MEASURED = {
    "agent": "--agent",
    "version": "--version",
    "cases_path": "--cases",
    "k": "--k",
    "completion_only": "--completion-only",
}
#: What an extension may raise (never lower): more attempts measure more of the same.
GROWING = {"attempts": "--attempts", "max_attempts": "--max-attempts"}
#: The settings an adaptive evaluation's stop rule reads: given anew, they may re-decide cases.
STOP_RULE = {"confidence": "--confidence", "require": "--require", "precision": "--precision"}
#: The settings a resume may give anew.
RUNNING = frozenset(
    {
        "concurrency",
        "timeout",
        "require",
        "stack",
        "agents_path",
        "precision",
        "confidence",
        "budget_runs",
        "budget_cost",
        "family_wise",
    }
)


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
        self.store = store
        #: What the agent resolved to, as stored (None: an evaluation stored before it was).
        self.definition = definition
        #: One line each, for stderr or a notification: the agent's definition changed.
        self.warnings = list(warnings)
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
        #: The stop reasons as the store holds them; written through as the policy's change.
        self._kept_reasons: dict[int, StopReason] = dict(stored_reasons or {})
        reasons = getattr(self.policy, "stop_reasons", None)
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


def file_sha256(path: str | Path) -> str:
    """The hash of a cases file's bytes; InputError when it cannot be read."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None


#: Builds the target of a Python callable (the API's) for an evaluation id and its settings.
TargetFactory = Callable[[str, Settings], Target]


def new_evaluation(
    settings: Settings,
    key: str | None,
    on_event: Callable[[Event], None] | None = None,
    *,
    store: Store | None = None,
    target_for: TargetFactory | None = None,
) -> RecordedEvaluation:
    """Load the cases and the target, record the evaluation in the store; nothing runs yet.

    InputError on bad input; the store's errors as InputError (exit 2) or RunError (3).
    ``store`` defaults to ``Store.open()`` (PASSK_DATA_DIR or the user data folder).
    ``target_for`` builds the target instead of the settings' stack or agents file (a
    Python callable, which no file names).
    """
    settings = with_local_price(settings, agents_file=target_for is None)
    cases = load_suite(settings)
    check_planned_size(len(cases), settings.attempts)
    if settings.max_attempts is not None:
        check_planned_size(len(cases), settings.max_attempts, "--max-attempts")
    digest = file_sha256(settings.cases_path)
    evaluation_id = new_evaluation_id()
    if target_for is not None:
        target = target_for(evaluation_id, settings)
    else:
        target = make_target(settings, key, evaluation_id)
    store = store if store is not None else Store.open()
    warnings = _definition_changed(store, settings, target.definition)
    stored_settings = _stored_settings(settings, agents_file=target_for is None)
    store.create_evaluation(
        evaluation_id, stored_settings, cases, digest, definition=target.definition
    )
    claim = store.claim(evaluation_id)
    return RecordedEvaluation(
        evaluation_id,
        cases,
        settings,
        target,
        store=store,
        claim=claim,
        on_event=on_event,
        definition=target.definition,
        warnings=warnings,
    )


def _definition_changed(store: Store, settings: Settings, definition: Definition) -> list[str]:
    """The warning when this agent and version ran as something else in the newest earlier
    evaluation that recorded what it ran (History and compare would mix the two)."""
    earlier = store.last_definition(
        settings.agent, settings.version, on_stack=settings.stack is not None
    )
    if earlier is None or same_measure(earlier[1], definition):
        return []
    return [changed_warning(settings.agent, settings.version, earlier[0], earlier[1], definition)]


def _check_same_definition(
    stored: StoredEvaluation, definition: Definition, changes_given: Mapping[str, Any]
) -> None:
    """A resume runs what the evaluation measured, or nothing: InputError when the agent now
    resolves to another definition (``--agents`` another file, or its file edited). An
    evaluation stored before definitions were has none to hold it to: it resumes unchecked;
    so does one that ran nothing yet (``_ran_nothing``), which takes the new definition."""
    if stored.definition is None or _ran_nothing(stored):
        return
    if same_measure(stored.definition, definition):
        return
    s = stored.settings
    given = changes_given.get("agents_path")
    what = f"--agents {given}" if given is not None else f"{s.agent} v{s.version} now"
    changed = "; ".join(definition_changes(stored.definition, definition))
    raise InputError(
        f"--resume {stored.id}: {what} would change what is measured ({changed}); "
        "start a new evaluation instead"
    )


def _callable_refused(stored: StoredEvaluation) -> None:
    """A Python callable's evaluation with attempts left: the command line has no callable to
    run them with, so it says where they can be run (its results show as any others do)."""
    definition = stored.definition or {}
    if definition.get("kind") == PYTHON:
        raise InputError(
            f"--resume {stored.id}: its agent is the Python callable {definition.get('callable')}, "
            f"which only Python can run: passk_tui.evaluate(agent, resume={stored.id!r})"
        )


def _ran_nothing(stored: StoredEvaluation) -> bool:
    """No attempt was recorded, not even a withdrawn one: nothing was measured yet (it failed
    to start: a program missing, a key refused), so what it runs may still be changed."""
    return not stored.records and not stored.withdrawn


def resume_evaluation(
    ref: str,
    key: str | None,
    changes: Mapping[str, Any] | None = None,
    on_event: Callable[[Event], None] | None = None,
    *,
    store: Store | None = None,
    target_for: TargetFactory | None = None,
) -> Resumed:
    """Continue the stored evaluation ``ref`` (an id, a prefix of one, or ``last``).

    ``changes`` holds settings given anew: the running ones (concurrency,
    timeout, require, stack, agents_path) replace the stored values; a measured
    one (agent, version, cases_path, attempts, k, completion_only) that differs
    from the stored value is refused with InputError. The stored cases are used
    as they were loaded, with the original evaluation id, so every attempt keeps
    its idempotency key. ``target_for`` builds the target of a Python callable, which
    only the API can give again (``--resume`` of one is refused, ``_callable_refused``).
    """
    store = store if store is not None else Store.open()
    stored = store.load(store.resolve(ref))
    forgotten = not stored.cases
    if forgotten:
        stored = replace(stored, cases=_cases_again(stored))
    settings = _resumed_settings(stored, dict(changes or {}))
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
    _check_rule_kept(stored, settings, changes or {}, policy.most_left())
    finished = policy.most_left() == 0
    warnings = [] if finished else _warnings(stored)
    claim = store.claim(stored.id)
    try:
        if finished:
            target: Target = _NothingToRun(stored.definition or {})
        else:
            if target_for is not None:
                target = target_for(stored.id, settings)
            else:
                _callable_refused(stored)
                target = make_target(settings, key, stored.id)
            _check_same_definition(stored, target.definition, changes or {})
            store.reopen(stored.id, _stored_settings(settings, agents_file=target_for is None))
            if _ran_nothing(stored) and stored.definition != target.definition:
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
    if finished:
        evaluation.status_reason = stored.status_reason  # shown as it ended
    return Resumed(evaluation, stored, finished, warnings)


def _check_rule_kept(
    stored: StoredEvaluation, settings: Settings, changes: Mapping[str, Any], most_left: int
) -> None:
    """Refuse a stop rule given anew (``--confidence``, ``--require``, ``--precision``) that would
    make an adaptive evaluation start Runs its stored rule would not, unless ``--max-attempts``
    says so too: re-deciding its cases at 99% ran 874 more Runs that nobody asked for.

    The intervals stay valid either way (the confidence sequence holds under any stopping
    rule); what is refused is spending Runs silently. Given with ``--max-attempts`` (the
    stored cap will do), the Runs are asked for in words.
    """
    if not settings.adaptive or changes.get("max_attempts") is not None:
        return
    current = stored.settings
    given = [n for n in STOP_RULE if n in changes and changes[n] != getattr(current, n)]
    if not given:
        return
    kept = replace(settings, **{n: getattr(current, n) for n in given})
    before = sampling_policy(
        kept, len(stored.cases), stored.records, stored.retakes(), stored.in_flight
    ).most_left()
    if most_left <= before:
        return
    name = given[0]
    raise InputError(
        f"--resume {stored.id}: {STOP_RULE[name]} {_rule_text(changes[name])} would re-decide "
        f"this adaptive evaluation's cases (stored: {_rule_text(getattr(current, name))}) and "
        f"start up to {most_left - before:,} more Runs; to run them give --max-attempts "
        f"{settings.max_attempts} with it, else leave {STOP_RULE[name]} out"
    )


def _rule_text(value: Any) -> str:
    """A stop rule's setting as the user wrote it: 0.99, 0.8 (not 4/5), or not given."""
    if value is None:
        return "not given"
    return f"{float(value):g}"


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
        unchanged = file_sha256(path) == stored.cases_sha256
    except InputError:
        unchanged = False
    if not unchanged:
        raise InputError(
            f"--resume {stored.id}: it failed before any attempt ran, so its cases were not "
            f"kept, and {path} is gone or changed; start a new evaluation"
        )
    return load_suite(stored.settings)


def _resumed_settings(stored: StoredEvaluation, changes: dict[str, Any]) -> Settings:
    if changes.pop("demo", False):
        changes.setdefault("agent", demo.AGENT)
        changes.setdefault("version", demo.VERSION)
        changes.setdefault("cases_path", str(demo.CASES))
    if "cases_path" in changes:
        changes["cases_path"] = _resolved(changes["cases_path"], "--cases")
    if "agents_path" in changes and changes["agents_path"] is not None:
        changes["agents_path"] = _resolved(changes["agents_path"], "--agents")
    current = stored.settings
    for name, flag in MEASURED.items():
        if name in changes and changes[name] != getattr(current, name):
            raise InputError(
                f"--resume {stored.id}: {flag} {_shown(changes[name])} would change what is "
                f"measured (stored: {_shown(getattr(current, name))}); start a new evaluation "
                "instead"
            )
    if changes.get("stack") and current.stack is None:
        raise InputError(
            f"--resume {stored.id}: --stack would change what is measured (it ran on a local "
            "agent); start a new evaluation instead"
        )
    grown = _grown(stored.id, current, changes)
    priced = kept_price(stored.id, current, changes)
    unknown = set(changes) - RUNNING - set(MEASURED) - set(GROWING) - set(PRICES)
    if unknown:
        raise ValueError(f"not settings: {', '.join(sorted(unknown))}")
    running = {name: value for name, value in changes.items() if name in RUNNING}
    if current.stack is None or not running.get("stack"):
        running.pop("stack", None)
    given: dict[str, Any] = {**running, **grown, **priced}  # they share no name
    resumed = replace(current, **given)
    if stored.records and _extends(current, resumed):
        # More attempts after figures were seen: n is chosen by looking from now on.
        resumed = replace(resumed, extended=True)
    if resumed.precision is not None and (resumed.require is not None or not resumed.adaptive):
        raise InputError(
            f"--resume {stored.id}: --precision is for an adaptive evaluation without --require"
        )
    return resumed


def _grown(evaluation_id: str, current: Settings, changes: Mapping[str, Any]) -> dict[str, int]:
    """The attempts and cap an extension gives; fewer than stored (or a cap under the
    attempts) is InputError in one line."""
    grown = {name: changes[name] for name in GROWING if changes.get(name) is not None}
    for name, value in grown.items():
        stored = getattr(current, name)
        if stored is not None and value < stored:
            raise InputError(
                f"--resume {evaluation_id}: {GROWING[name]} {value} is fewer than the {stored} "
                "stored; an evaluation can only be extended"
            )
    attempts = grown.get("attempts", current.attempts)
    cap = grown.get("max_attempts", current.max_attempts)
    if cap is not None and cap < attempts:
        raise InputError(
            f"--resume {evaluation_id}: --max-attempts {cap} is below --attempts {attempts}"
        )
    return grown


def _extends(current: Settings, resumed: Settings) -> bool:
    """Whether the resume plans more attempts than were planned: more per case, or a cap
    (higher) where there was none (lower)."""
    if resumed.attempts > current.attempts:
        return True
    return resumed.max_attempts is not None and (
        current.max_attempts is None or resumed.max_attempts > current.max_attempts
    )


def _resolved(path: str, flag: str) -> str:
    """``path`` made absolute, as the stored one is; InputError for a name no file can have
    (a NUL, a lone surrogate), which the OS cannot even be asked about."""
    try:
        return str(Path(path).resolve())
    except (OSError, ValueError):
        raise InputError(f"{flag} {_shown(path)}: no file can have this name") from None


def _shown(value: Any) -> str:
    return "given" if value is True else "not given" if value is False else str(value)


def _warnings(stored: StoredEvaluation) -> list[str]:
    warnings: list[str] = []
    path = Path(stored.settings.cases_path)
    if not path.is_file():
        warnings.append(f"{path} no longer exists: the stored cases are used")
    else:
        try:
            changed = file_sha256(path) != stored.cases_sha256
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
            f"evaluation {stored.id} began {age / 3600:.0f} h ago and the stack keeps "
            "idempotency keys for 24 h: attempts that were in flight may run again"
        )
    return warnings


def _stored_settings(settings: Settings, *, agents_file: bool = True) -> Settings:
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


class _NothingToRun:
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
