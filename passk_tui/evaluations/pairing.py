"""A baseline version run beside the candidate (``--baseline V``): two stored evaluations, one pool.

Each version is its own evaluation, made (or resumed) exactly as a single one
is (``new``, ``resume``), so each keeps its own target, sink, claim and sampling
policy (fixed, or adaptive when asked for: it then applies to both); the pair
is linked in the store, and their attempts take turns in one pool of
``--concurrency`` workers so that a slow hour of the stack hurts both alike.
Both faces use it: the headless one (``baseline_cli``) and the app.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any, Literal

from passk_tui import demo
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.budget import group_budget_line
from passk_tui.core.run.events import Event
from passk_tui.evaluations.group_run import (
    GroupRun,
    group_status,
    new_members,
    resume_members,
    resumed_warnings,
)
from passk_tui.evaluations.recorded import RecordedEvaluation
from passk_tui.store import Store
from passk_tui.store.comparison import ComparedEvaluations, compare_stored
from passk_tui.store.pairs import Pair, link, pair_of

Role = Literal["baseline", "candidate"]
#: A face's listener: which of the two an event is from, and the event.
PairListener = Callable[[Role, Event], None]


class PairedRun(GroupRun):
    """The baseline (A) and the candidate (B), ready to run together; then their comparison."""

    def __init__(
        self,
        baseline: RecordedEvaluation,
        candidate: RecordedEvaluation,
        store: Store,
        *,
        shown_only: bool = False,
        warnings: list[str] | None = None,
    ) -> None:
        super().__init__([baseline, candidate], store, shown_only, warnings or [])

    @property
    def baseline(self) -> RecordedEvaluation:
        return self.members[0]

    @property
    def candidate(self) -> RecordedEvaluation:
        return self.members[1]

    @property
    def evaluation_id(self) -> str:
        """The id a resume names (either resumes both): the candidate's."""
        return self.candidate.evaluation_id

    def compared(self, confidence: Fraction = DEFAULT_CONFIDENCE) -> ComparedEvaluations:
        """The two as stored now, compared per case (the baseline as A)."""
        baseline = self.store.load(self.baseline.evaluation_id)
        candidate = self.store.load(self.candidate.evaluation_id)
        return compare_stored(baseline, candidate, confidence)


#: Kept under its old name: a pair ends as any group does.
pair_status = group_status


def _listener(on_event: PairListener | None, role: Role) -> Callable[[Event], None] | None:
    return None if on_event is None else (lambda event: on_event(role, event))


def new_pair(
    settings: Settings,
    baseline_version: int,
    key: str | None,
    on_event: PairListener | None = None,
    *,
    store: Store | None = None,
) -> PairedRun:
    """Record two evaluations of the same cases, ``baseline_version`` and ``settings.version``,
    linked as a pair; nothing runs yet. Errors as ``new_evaluation``'s.

    The baseline is made first, so ``last`` names the candidate and ``last~1`` the baseline.
    """
    store = store if store is not None else Store.open()
    baseline, candidate = new_members(
        [replace(settings, version=baseline_version), settings],
        key,
        [_listener(on_event, "baseline"), _listener(on_event, "candidate")],
        store,
        [
            f"evaluation of version {baseline_version}",
            f"the candidate (version {settings.version})",
        ],
    )
    link(store, baseline.evaluation_id, candidate.evaluation_id)
    budget = group_budget_line(settings, 2, "version")
    warnings = [*baseline.warnings, *candidate.warnings, *([budget] if budget else [])]
    return PairedRun(baseline, candidate, store, warnings=warnings)


def find_pair(ref: str, *, store: Store | None = None) -> Pair | None:
    """The pair the evaluation ``ref`` names is in; None when it ran alone."""
    store = store if store is not None else Store.open()
    return pair_of(store, store.resolve(ref))


def resume_pair(
    pair: Pair,
    key: str | None,
    changes: Mapping[str, Any] | None = None,
    on_event: PairListener | None = None,
    *,
    baseline_version: int | None = None,
    store: Store | None = None,
) -> PairedRun:
    """Continue both evaluations of ``pair`` together, each with its stored settings.

    ``changes`` are checked and applied as ``resume_evaluation`` does, to both, except
    the version: ``--version`` is checked against the candidate's and
    ``baseline_version`` (``--baseline`` given again) against the baseline's.
    """
    store = store if store is not None else Store.open()
    changes = dict(changes or {})
    if baseline_version is not None and baseline_version != pair.baseline_version:
        raise InputError(
            f"--resume {pair.candidate_id}: --baseline {baseline_version} would change what is "
            f"measured (stored: {pair.baseline_version}); start a new evaluation instead"
        )
    if changes.pop("demo", False):
        # --demo names the demo's agent and cases; the versions stay the pair's.
        changes.setdefault("agent", demo.AGENT)
        changes.setdefault("cases_path", str(demo.CASES))
    baseline_changes = {name: value for name, value in changes.items() if name != "version"}
    both = resume_members(
        [pair.baseline_id, pair.candidate_id],
        key,
        [baseline_changes, changes],
        [_listener(on_event, "baseline"), _listener(on_event, "candidate")],
        store,
    )
    baseline, candidate = both
    warnings = resumed_warnings(both)
    shown_only = all(r.shown_only for r in both)
    budget = group_budget_line(candidate.evaluation.settings, 2, "version")
    if budget is not None and not shown_only:
        warnings.append(budget)
    return PairedRun(
        baseline.evaluation, candidate.evaluation, store, shown_only=shown_only, warnings=warnings
    )
