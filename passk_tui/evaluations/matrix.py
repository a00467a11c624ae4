"""A matrix (``--version 1,2,3``, ``--agent a,b``): every case on every target, in one pool.

Each target is its own stored evaluation, made or resumed exactly as a single one is
(``group_run``), linked as one group in the store (``store.groups``); their attempts
take turns in one pool, so a stop leaves every target with as many attempts as the
others, give or take one. Every face uses it: the headless one (``cli.matrix``), the
app's Matrix screen and ``evaluate()`` with a list of agents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from passk_tui import demo
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.inputs.target_list import (
    MatrixTarget,
    matrix_targets,
    parse_agents,
    parse_versions,
    target_kind,
    target_labels,
)
from passk_tui.core.run.budget import group_budget_line
from passk_tui.core.run.events import Event
from passk_tui.evaluations.group_run import (
    GroupRun,
    MemberListener,
    new_members,
    resume_members,
    resumed_warnings,
)
from passk_tui.evaluations.matrix_reading import MatrixReading
from passk_tui.evaluations.recorded import TargetFactory
from passk_tui.evaluations.settings_text import flag
from passk_tui.store import Store
from passk_tui.store.groups import Group, group_of, link_group

#: A face's listener: which target (its position) an event is from, and the event.
MatrixListener = Callable[[int, Event], None]


@dataclass
class MatrixRun(GroupRun):
    """Every target's evaluation, in the order given (the first is compared with each other)."""

    targets: tuple[MatrixTarget, ...] = ()

    @property
    def labels(self) -> list[str]:
        """How each target is named (``v2``; ``calc``; ``calc v2``)."""
        return target_labels(self.targets)

    @property
    def group_id(self) -> str:
        return self.evaluation_id

    def reading(self, confidence: Fraction = DEFAULT_CONFIDENCE) -> MatrixReading:
        """Every target as stored now, and the first compared with each other."""
        ids = tuple(member.evaluation_id for member in self.members)
        group = Group(self.group_id, ids, self.targets)
        return MatrixReading.load(self.store, group, confidence)


def _listeners(on_event: MatrixListener | None, count: int) -> list[MemberListener]:
    if on_event is None:
        return [None] * count
    return [lambda event, i=i: on_event(i, event) for i in range(count)]  # type: ignore[misc]


def new_matrix(
    settings: Settings,
    targets: Sequence[MatrixTarget],
    key: str | None,
    on_event: MatrixListener | None = None,
    *,
    store: Store | None = None,
    target_for: TargetFactory | None = None,
) -> MatrixRun:
    """Record one evaluation per target (``settings`` with its agent and version), linked as a
    group; nothing runs yet. Errors as ``new_evaluation``'s; none is left running."""
    if len(targets) < 2:
        raise ValueError("a matrix has at least two targets")
    if target_for is None and settings.stack is None:
        _check_local(settings, targets)
    store = store if store is not None else Store.open()
    labels = target_labels(targets)
    members = new_members(
        [replace(settings, agent=t.agent, version=t.version) for t in targets],
        key,
        _listeners(on_event, len(targets)),
        store,
        [f"target {label}" for label in labels],
        target_for,
    )
    link_group(store, [m.evaluation_id for m in members])
    budget = group_budget_line(settings, len(targets), target_kind(targets))
    warnings = list(dict.fromkeys(w for m in members for w in m.warnings))
    warnings += [budget] if budget else []
    return MatrixRun(members, store, warnings=warnings, targets=tuple(targets))


def _check_local(settings: Settings, targets: Sequence[MatrixTarget]) -> None:
    """Every local target is in the agents file: bad input before any target is stored."""
    from passk_tui.targets.agents_file import find_agents_file, find_version

    path = find_agents_file(Path(settings.agents_path) if settings.agents_path else None)
    for target in targets:
        find_version(path, target.agent, target.version)


def find_group(ref: str, *, store: Store | None = None) -> Group | None:
    """The group the evaluation ``ref`` names is in; None when it ran alone."""
    store = store if store is not None else Store.open()
    return group_of(store, store.resolve(ref))


def given_targets(
    agent_text: str | None, version_text: str | None, group: Group
) -> list[MatrixTarget] | None:
    """The targets ``--agent`` and ``--version`` given again with a resume name (the group's
    agents or versions fill the one not given); None when neither is given."""
    if agent_text is None and version_text is None:
        return None
    agents = flag("agent", agent_text, parse_agents, None)
    versions = flag("version", version_text, parse_versions, None)
    stored_agents = tuple(dict.fromkeys(t.agent for t in group.targets))
    stored_versions = tuple(dict.fromkeys(t.version for t in group.targets))
    return matrix_targets(agents or stored_agents, versions or stored_versions)


def resume_matrix(
    group: Group,
    key: str | None,
    changes: Mapping[str, Any] | None = None,
    on_event: MatrixListener | None = None,
    *,
    targets: Sequence[MatrixTarget] | None = None,
    store: Store | None = None,
) -> MatrixRun:
    """Continue every target of ``group`` together, each with its stored settings.

    ``changes`` apply to every target as ``resume_evaluation`` applies them; ``targets``
    (the lists given again) must be the group's, else the resume is refused.
    """
    store = store if store is not None else Store.open()
    if targets is not None and tuple(targets) != group.targets:
        given = ", ".join(target_labels(targets))
        stored = ", ".join(target_labels(group.targets))
        raise InputError(
            f"--resume {group.id}: the targets {given} would change what is measured "
            f"(stored: {stored}); start a new evaluation instead"
        )
    changes = {name: v for name, v in (changes or {}).items() if name not in ("agent", "version")}
    if changes.pop("demo", False):
        changes.setdefault("cases_path", str(demo.CASES))
    resumed = resume_members(
        group.evaluation_ids,
        key,
        [changes] * len(group.evaluation_ids),
        _listeners(on_event, len(group.evaluation_ids)),
        store,
    )
    shown_only = all(r.shown_only for r in resumed)
    warnings = resumed_warnings(resumed)
    budget = group_budget_line(
        resumed[0].evaluation.settings, len(group.targets), target_kind(group.targets)
    )
    if budget is not None and not shown_only:
        warnings.append(budget)
    return MatrixRun(
        [r.evaluation for r in resumed],
        store,
        shown_only=shown_only,
        warnings=warnings,
        targets=group.targets,
    )
