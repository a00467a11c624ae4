"""A new evaluation from its settings: cases and target loaded, recorded in the store, claimed."""

from __future__ import annotations

from collections.abc import Callable

from passk_tui.core.inputs.agent_definition import Definition, changed_warning, same_measure
from passk_tui.core.inputs.file_digests import sha256_of
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_keys import check_planned_size, new_evaluation_id
from passk_tui.core.run.events import Event
from passk_tui.evaluations.cost_settings import with_local_price
from passk_tui.evaluations.judging import JudgeCallables, judges_for
from passk_tui.evaluations.lookups import load_suite, make_target
from passk_tui.evaluations.recorded import (
    RecordedEvaluation,
    TargetFactory,
    stored_settings,
)
from passk_tui.store import Store
from passk_tui.targets.conversing.users import simulated_users


def new_evaluation(
    settings: Settings,
    key: str | None,
    on_event: Callable[[Event], None] | None = None,
    *,
    store: Store | None = None,
    target_for: TargetFactory | None = None,
    judges: JudgeCallables | None = None,
) -> RecordedEvaluation:
    """Load the cases and the target, record the evaluation in the store; nothing runs yet.

    InputError on bad input; the store's errors as InputError (exit 2) or RunError (3).
    ``store`` defaults to ``Store.open()`` (PASSK_DATA_DIR or the user data folder).
    ``target_for`` builds the target instead of the settings' stack or agents file (a
    Python callable, which no file names); ``judges`` names Python callables that judge
    (the API's), before the agents file's agents.
    """
    settings = with_local_price(settings, agents_file=target_for is None)
    cases = load_suite(settings)
    check_planned_size(len(cases), settings.attempts)
    if settings.max_attempts is not None:
        check_planned_size(len(cases), settings.max_attempts, "--max-attempts")
    digest = sha256_of(settings.cases_path)
    evaluation_id = new_evaluation_id()
    if target_for is not None:
        target = target_for(evaluation_id, settings)
    else:
        target = make_target(settings, key, evaluation_id)
    users = simulated_users(cases, settings.agents_path, settings.concurrency)
    store = store if store is not None else Store.open()
    made_judges = judges_for(cases, settings, store, evaluation_id, judges)
    warnings = _definition_changed(store, settings, target.definition)
    as_stored = stored_settings(settings, agents_file=target_for is None)
    store.create_evaluation(evaluation_id, as_stored, cases, digest, definition=target.definition)
    claim = store.claim(evaluation_id)
    evaluation = RecordedEvaluation(
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
    evaluation.users = users
    evaluation.judges = made_judges
    return evaluation


def _definition_changed(store: Store, settings: Settings, definition: Definition) -> list[str]:
    """The warning when this agent and version ran as something else in the newest earlier
    evaluation that recorded what it ran (History and compare would mix the two)."""
    earlier = store.last_definition(
        settings.agent, settings.version, on_stack=settings.stack is not None
    )
    if earlier is None or same_measure(earlier[1], definition):
        return []
    return [changed_warning(settings.agent, settings.version, earlier[0], earlier[1], definition)]
