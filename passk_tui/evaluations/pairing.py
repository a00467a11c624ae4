"""A baseline version run beside the candidate (``--baseline V``): two stored evaluations, one pool.

Each version is its own evaluation, made (or resumed) exactly as a single one
is (``new``, ``resume``), so each keeps its own target, sink, claim and sampling
policy (fixed, or adaptive when asked for: it then applies to both); the pair
is linked in the store, and their attempts take turns in one pool of
``--concurrency`` workers so that a slow hour of the stack hurts both alike.
Both faces use it: the headless one (``baseline_cli``) and the app.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from passk_tui import demo
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.budget import pair_budget_line
from passk_tui.core.run.engine import Interleaved, Status
from passk_tui.core.run.events import Event
from passk_tui.core.stats.comparing.compare import DEFAULT_CONFIDENCE
from passk_tui.evaluations.new import new_evaluation
from passk_tui.evaluations.recorded import RecordedEvaluation
from passk_tui.evaluations.resume import resume_evaluation
from passk_tui.store import Store
from passk_tui.store.comparison import ComparedEvaluations, compare_stored
from passk_tui.store.pairs import Pair, link, pair_of

Role = Literal["baseline", "candidate"]
#: A face's listener: which of the two an event is from, and the event.
PairListener = Callable[[Role, Event], None]


@dataclass
class PairedRun:
    """The baseline (A) and the candidate (B), ready to run together; then their comparison."""

    baseline: RecordedEvaluation
    candidate: RecordedEvaluation
    store: Store
    shown_only: bool = False
    """Resumed with both done: nothing to run, only the comparison to show."""
    warnings: list[str] = field(default_factory=list)
    running: Interleaved = field(init=False)

    def __post_init__(self) -> None:
        self.running = Interleaved([self.baseline, self.candidate])

    @property
    def evaluation_id(self) -> str:
        """The id a resume names (either resumes both): the candidate's."""
        return self.candidate.evaluation_id

    @property
    def error(self) -> str | None:
        """Why the pair failed: the error of the one whose failure stopped the other."""
        cause = self.running.cause or self.candidate
        return cause.error

    async def run(self) -> Status:
        """Run both; how the pair ended (``pair_status``)."""
        return pair_status(await self.running.run())

    def cancel(self) -> None:
        """The user stops: both withdraw their attempts in flight."""
        self.running.cancel()

    async def aclose(self) -> None:
        """Close both targets, once the run is over."""
        await self.running.aclose()

    def compared(self, confidence: Fraction = DEFAULT_CONFIDENCE) -> ComparedEvaluations:
        """The two as stored now, compared per case (the baseline as A)."""
        baseline = self.store.load(self.baseline.evaluation_id)
        candidate = self.store.load(self.candidate.evaluation_id)
        return compare_stored(baseline, candidate, confidence)


def pair_status(statuses: Sequence[Status]) -> Status:
    """``failed`` if either failed, else ``cancelled`` if stopped, else ``done``."""
    return next((s for s in ("failed", "cancelled") if s in statuses), "done")


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
    baseline = new_evaluation(
        replace(settings, version=baseline_version),
        key,
        _listener(on_event, "baseline"),
        store=store,
    )
    try:
        candidate = new_evaluation(settings, key, _listener(on_event, "candidate"), store=store)
        link(store, baseline.evaluation_id, candidate.evaluation_id)
    except BaseException as exc:
        baseline.abort(f"not run: the candidate (version {settings.version}) could not: {exc}")
        raise
    budget = pair_budget_line(settings)
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
    baseline = resume_evaluation(
        pair.baseline_id, key, baseline_changes, _listener(on_event, "baseline"), store=store
    )
    try:
        candidate = resume_evaluation(
            pair.candidate_id, key, changes, _listener(on_event, "candidate"), store=store
        )
    except BaseException:
        baseline.evaluation.release()
        raise
    both = (baseline, candidate)
    warnings = list(dict.fromkeys(w for r in both for w in r.warnings))
    shown_only = all(r.shown_only for r in both)
    budget = pair_budget_line(candidate.evaluation.settings)
    if budget is not None and not shown_only:
        warnings.append(budget)
    return PairedRun(
        baseline.evaluation, candidate.evaluation, store, shown_only=shown_only, warnings=warnings
    )
