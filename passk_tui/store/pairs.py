"""Evaluations run as a pair (``--baseline V``): which baseline goes with which candidate.

Kept in a table of its own, created when first needed (``CREATE TABLE IF NOT
EXISTS``), so the store's schema version and its other tables are untouched: an
older store simply has no pairs yet. An evaluation is in at most one pair.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.store.comparison import ComparedEvaluations, compare_stored
from passk_tui.store.database import Store

PAIRS_TABLE = """
CREATE TABLE IF NOT EXISTS pairs (
    baseline_id  TEXT PRIMARY KEY REFERENCES evaluations(id) ON DELETE CASCADE,
    candidate_id TEXT NOT NULL UNIQUE REFERENCES evaluations(id) ON DELETE CASCADE,
    created      REAL NOT NULL              -- unix seconds
)
"""


@dataclass(frozen=True, slots=True)
class Pair:
    """A baseline evaluation and the candidate run beside it, with the version each measured."""

    baseline_id: str
    candidate_id: str
    baseline_version: int
    candidate_version: int


def link(store: Store, baseline_id: str, candidate_id: str) -> None:
    """Record that the two evaluations run as one pair (both must be stored already)."""
    with store.connection.writing("the pair of evaluations") as db:
        db.execute(PAIRS_TABLE)
        db.execute(
            "INSERT INTO pairs (baseline_id, candidate_id, created) VALUES (?, ?, ?)",
            (baseline_id, candidate_id, time.time()),
        )


def pair_of(store: Store, evaluation_id: str) -> Pair | None:
    """The pair the evaluation is in, as baseline or as candidate; None when it ran alone."""
    exists = store.connection.query(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pairs'"
    )
    if not exists:
        return None
    rows = store.connection.query(
        "SELECT p.baseline_id, p.candidate_id, a.version AS a, b.version AS b FROM pairs p"
        " JOIN evaluations a ON a.id = p.baseline_id JOIN evaluations b ON b.id = p.candidate_id"
        " WHERE p.baseline_id = ? OR p.candidate_id = ?",
        (evaluation_id, evaluation_id),
    )
    if not rows:
        return None
    row = rows[0]
    return Pair(row["baseline_id"], row["candidate_id"], row["a"], row["b"])


def load_pair(
    store: Store, ref: str, confidence: Fraction = DEFAULT_CONFIDENCE
) -> ComparedEvaluations | None:
    """The comparison of the pair ``ref`` (either evaluation, as ``Store.resolve`` reads it)
    is in, baseline as A; None when that evaluation ran alone."""
    pair = pair_of(store, store.resolve(ref))
    if pair is None:
        return None
    baseline, candidate = store.load(pair.baseline_id), store.load(pair.candidate_id)
    return compare_stored(baseline, candidate, confidence)
