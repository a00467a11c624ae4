"""Evaluations run together as a matrix (``--version 1,2,3``): which belong to one group.

Each target of a matrix is its own evaluation (History, ``compare``, exports work on
any of them); the group ties them together, in order, under the first one's id, so
that a resume of any of them continues them all and the group's exports and Matrix
screen find every target. Two columns of ``evaluations`` (migration 14).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from passk_tui.core.inputs.target_list import MatrixTarget
from passk_tui.store.database import Store


@dataclass(frozen=True, slots=True)
class Group:
    """A matrix as stored: its id (the first member's), the members' ids and targets in order."""

    id: str
    evaluation_ids: tuple[str, ...]
    targets: tuple[MatrixTarget, ...]


def link_group(store: Store, evaluation_ids: Sequence[str]) -> str:
    """Record that the evaluations (all stored already) run as one group; its id."""
    group_id = evaluation_ids[0]
    with store.connection.writing("the group of evaluations") as db:
        db.executemany(
            "UPDATE evaluations SET group_id = ?, group_position = ? WHERE id = ?",
            [(group_id, position, id_) for position, id_ in enumerate(evaluation_ids)],
        )
    return group_id


def group_of(store: Store, evaluation_id: str) -> Group | None:
    """The group the evaluation is in; None when it ran alone."""
    found = store.connection.query(
        "SELECT group_id FROM evaluations WHERE id = ?", (evaluation_id,)
    )
    if not found or found[0]["group_id"] is None:
        return None
    group_id = found[0]["group_id"]
    rows = store.connection.query(
        "SELECT id, agent, version FROM evaluations WHERE group_id = ? ORDER BY group_position",
        (group_id,),
    )
    return Group(
        group_id,
        tuple(row["id"] for row in rows),
        tuple(MatrixTarget(row["agent"], row["version"]) for row in rows),
    )
