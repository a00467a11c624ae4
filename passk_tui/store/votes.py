"""The judge's votes in the store: each kept as soon as its Run ends, read back with its attempt."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord, Vote
from passk_tui.core.checks.panel import Judged
from passk_tui.core.inputs.bounds import bounded_output
from passk_tui.core.inputs.price import exact_decimal
from passk_tui.store import rows as layout
from passk_tui.store.connection import StoreConnection

#: (case index, attempt, retake): which attempt a vote belongs to.
AttemptPlace = tuple[int, int, int]


class StoreVotes(StoreConnection):
    """Writing and reading the ``judge_votes`` table."""

    def keep_vote(self, evaluation_id: str, attempt: Judged, vote: Vote) -> None:
        """Keep one vote (a vote of the same Run asked again replaces it), in one transaction."""
        text, _ = bounded_output(vote.text)
        with self._writing("the judge's vote") as db:
            db.execute(
                "INSERT OR REPLACE INTO judge_votes (evaluation_id, case_index, attempt, retake,"
                " run, key, agent, version, verdict, text, error, usage, cost, prompt_sha256)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    evaluation_id,
                    attempt.case_index,
                    attempt.attempt,
                    attempt.retake,
                    vote.run,
                    f"{attempt.key}/judge/{vote.run}",
                    layout.text(vote.agent),
                    vote.version,
                    None if vote.verdict is None else int(vote.verdict),
                    layout.text(text),
                    layout.text(vote.error),
                    None if vote.usage is None else layout.to_json(vote.usage),
                    None if vote.cost is None else exact_decimal(vote.cost),
                    vote.prompt_sha256,
                ),
            )

    def forget_votes(self, evaluation_id: str, attempt: Judged) -> None:
        """Drop an attempt's votes: they judged an answer it no longer has (its Run ran again)."""
        with self._writing("the judge's votes") as db:
            db.execute(
                "DELETE FROM judge_votes WHERE evaluation_id = ? AND case_index = ?"
                " AND attempt = ? AND retake = ?",
                (evaluation_id, attempt.case_index, attempt.attempt, attempt.retake),
            )

    def votes_of(self, evaluation_id: str) -> dict[AttemptPlace, tuple[Vote, ...]]:
        """Every stored vote of the evaluation, by attempt, in Run order."""
        found: dict[AttemptPlace, list[Vote]] = {}
        for row in self._query(
            "SELECT * FROM judge_votes WHERE evaluation_id = ?"
            " ORDER BY case_index, attempt, retake, run",
            (evaluation_id,),
        ):
            place = (row["case_index"], row["attempt"], row["retake"])
            found.setdefault(place, []).append(vote_from_row(row))
        return {place: tuple(votes) for place, votes in found.items()}


def vote_from_row(row: sqlite3.Row) -> Vote:
    verdict = row["verdict"]
    return Vote(
        run=row["run"],
        agent=row["agent"],
        version=row["version"],
        verdict=None if verdict is None else bool(verdict),
        text=row["text"],
        error=row["error"],
        usage=None if row["usage"] is None else json.loads(row["usage"]),
        cost=None if row["cost"] is None else Fraction(row["cost"]),
        prompt_sha256=row["prompt_sha256"],
    )


def with_votes(
    records: Sequence[AttemptRecord], votes: dict[AttemptPlace, tuple[Vote, ...]]
) -> list[AttemptRecord]:
    """The records, each with the votes stored for it."""
    return [
        replace(r, votes=found) if (found := votes.get((r.case_index, r.attempt, r.retake))) else r
        for r in records
    ]
