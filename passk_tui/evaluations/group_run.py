"""Several stored evaluations run together in one pool: a ``--baseline`` pair, or a matrix.

Each member is its own evaluation, made (or resumed) exactly as a single one is,
so each keeps its own target, sink, claim and sampling policy; their attempts take
turns in one pool of ``--concurrency`` workers (``Interleaved``), so a stop leaves
them comparable and a slow hour of the stack hurts each alike. What a pair and a
matrix add (how they are linked in the store, what they compare) is theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.engine import Interleaved, Status
from passk_tui.core.run.events import Event
from passk_tui.evaluations.new import new_evaluation
from passk_tui.evaluations.recorded import RecordedEvaluation, TargetFactory
from passk_tui.evaluations.resume import Resumed, resume_evaluation
from passk_tui.store import Store

#: One member's listener (None: nobody listens).
MemberListener = Callable[[Event], None] | None


@dataclass
class GroupRun:
    """The members, ready to run together in one pool; ``evaluation_id`` is the one a resume names."""

    members: list[RecordedEvaluation]
    store: Store
    shown_only: bool = False
    """Resumed with every member done: nothing to run, only the results to show."""
    warnings: list[str] = field(default_factory=list)
    running: Interleaved = field(init=False)

    def __post_init__(self) -> None:
        self.running = Interleaved(self.members)

    @property
    def evaluation_id(self) -> str:
        """The id a resume names (any member resumes all): the first member's."""
        return self.members[0].evaluation_id

    @property
    def error(self) -> str | None:
        """Why the run failed: the error of the member whose failure stopped the others."""
        cause = self.running.cause or self.members[-1]
        return cause.error

    async def run(self) -> Status:
        """Run every member; how the group ended (``group_status``)."""
        return group_status(await self.running.run())

    def cancel(self) -> None:
        """The user stops: every member withdraws its attempts in flight."""
        self.running.cancel()

    async def aclose(self) -> None:
        """Close every target, once the run is over."""
        await self.running.aclose()


def group_status(statuses: Sequence[Status]) -> Status:
    """``failed`` if any failed, else ``cancelled`` if stopped, else ``done``."""
    return next((s for s in ("failed", "cancelled") if s in statuses), "done")


def new_members(
    settings: Sequence[Settings],
    key: str | None,
    listeners: Sequence[MemberListener],
    store: Store,
    what: Sequence[str],
    target_for: TargetFactory | None = None,
) -> list[RecordedEvaluation]:
    """Record one evaluation per settings, in order; nothing runs yet. When one cannot be made,
    those made before end failed, unrun, naming it (``what[i]`` names the i-th), and its error
    propagates (as ``new_evaluation``'s)."""
    made: list[RecordedEvaluation] = []
    for one, listener, name in zip(settings, listeners, what, strict=True):
        try:
            made.append(new_evaluation(one, key, listener, store=store, target_for=target_for))
        except BaseException as exc:
            for earlier in made:
                earlier.abort(f"not run: {name} could not: {exc}")
            raise
    return made


def resume_members(
    evaluation_ids: Sequence[str],
    key: str | None,
    changes: Sequence[Mapping[str, Any]],
    listeners: Sequence[MemberListener],
    store: Store,
) -> list[Resumed]:
    """Resume each member with its changes, in order; when one cannot be, those claimed before
    let go of their claims and its error propagates (as ``resume_evaluation``'s)."""
    resumed: list[Resumed] = []
    for id_, change, listener in zip(evaluation_ids, changes, listeners, strict=True):
        try:
            resumed.append(resume_evaluation(id_, key, change, listener, store=store))
        except BaseException:
            for earlier in resumed:
                earlier.evaluation.release()
            raise
    return resumed


def resumed_warnings(resumed: Sequence[Resumed]) -> list[str]:
    """Every member's warnings, each said once."""
    return list(dict.fromkeys(w for r in resumed for w in r.warnings))
