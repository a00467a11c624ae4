"""Reading evaluations back: ids from references, the history list, one evaluation whole,
the judge's votes with their attempt, and what simulated users wrote. Functions over the
store's connection, that never write; ``Store`` answers with them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from passk_tui.core.attempt import AttemptRecord, Outcome, Turn, Vote
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.run.policy import Slot
from passk_tui.core.stats.extent import extent, known_attempts
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.interval_choice import evaluation_choice
from passk_tui.core.text.mentions import shorten
from passk_tui.core.text.terminal_text import first_unsafe
from passk_tui.store import rows as layout
from passk_tui.store.claims import is_claimed
from passk_tui.store.connection import StoreConnection
from passk_tui.store.errors import UnknownEvaluation
from passk_tui.store.history import gate_counts
from passk_tui.store.models import EvaluationSummary, StoredEvaluation

#: (case index, attempt, retake): which attempt a vote belongs to.
AttemptPlace = tuple[int, int, int]


def votes_of(
    connection: StoreConnection, evaluation_id: str
) -> dict[AttemptPlace, tuple[Vote, ...]]:
    """Every stored vote of the evaluation, by attempt, in Run order."""
    found: dict[AttemptPlace, list[Vote]] = {}
    for row in connection.query(
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


def user_messages_of(
    connection: StoreConnection, evaluation_id: str
) -> dict[str, tuple[str, Turn]]:
    """What the evaluation's simulated users wrote, by key: the sha256 of what each was
    shown, and the completed Turn it wrote."""
    return {
        row["key"]: (
            row["view_sha256"],
            Turn(
                "completed",
                output=json.loads(row["output"]),
                usage=None if row["usage"] is None else json.loads(row["usage"]),
            ),
        )
        for row in connection.query(
            "SELECT key, view_sha256, output, usage FROM user_messages WHERE evaluation_id = ?",
            (evaluation_id,),
        )
    }


def with_votes(
    records: Sequence[AttemptRecord], votes: dict[AttemptPlace, tuple[Vote, ...]]
) -> list[AttemptRecord]:
    """The records, each with the votes stored for it."""
    return [
        replace(r, votes=found) if (found := votes.get((r.case_index, r.attempt, r.retake))) else r
        for r in records
    ]


def resolve(connection: StoreConnection, ref: str) -> str:
    """The id ``ref`` names: ``last`` (the newest), ``last~N`` (the one N before it), a full
    id, or an unambiguous prefix."""
    ref = ref.strip()
    shown = shorten(ref)
    if first_unsafe(ref) is not None:
        # No id holds a control character, and SQLite cannot take a lone surrogate.
        raise UnknownEvaluation(f"no evaluation {shown!r} in the store ({connection.path})")
    back = newest_but(ref)
    if back is not None:
        rows = connection.query(
            "SELECT id FROM evaluations ORDER BY created DESC, id DESC LIMIT 1 OFFSET ?",
            (back,),
        )
        if not rows:
            held = connection.query("SELECT COUNT(*) AS n FROM evaluations")[0]["n"]
            raise UnknownEvaluation(
                f"{shown}: the store holds only {held} evaluation{'s' * (held > 1)} ({connection.path})"
                if held
                else f"{shown}: no evaluation in the store ({connection.path})"
            )
        newest: str = rows[0]["id"]
        return newest
    escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = connection.query(
        "SELECT id FROM evaluations WHERE id LIKE ? ESCAPE '\\' ORDER BY created LIMIT 3",
        (escaped + "%",),
    )
    exact: list[str] = [r["id"] for r in rows if r["id"] == ref]
    if exact:
        return exact[0]
    if not rows:
        raise UnknownEvaluation(f"no evaluation {shown!r} in the store ({connection.path})")
    if len(rows) > 1:
        raise UnknownEvaluation(f"{shown!r} names more than one evaluation; give more of the id")
    found: str = rows[0]["id"]
    return found


def last_definition(
    connection: StoreConnection, agent: str, version: int, *, on_stack: bool
) -> tuple[str, Definition] | None:
    """The newest evaluation of this agent and version (on a stack, or local) that recorded
    its definition and measured something with it (one that failed before any attempt,
    a typo in the file, means nothing to keep to): (its id, the definition), or None."""
    rows = connection.query(
        "SELECT id, agent_definition FROM evaluations e WHERE agent = ? AND version = ?"
        " AND (stack IS NOT NULL) = ? AND agent_definition IS NOT NULL"
        " AND EXISTS (SELECT 1 FROM attempts a WHERE a.evaluation_id = e.id)"
        " ORDER BY created DESC, id DESC LIMIT 1",
        (agent, version, on_stack),
    )
    definition = layout.definition_from_column(rows[0]["agent_definition"]) if rows else None
    return None if definition is None else (rows[0]["id"], definition)


def list_evaluations(connection: StoreConnection) -> list[EvaluationSummary]:
    """Every evaluation, newest first, with its counts and how many cases miss the gate."""
    evaluations = connection.query("SELECT * FROM evaluations ORDER BY created DESC, id DESC")
    # One pass over the attempts gives both the recorded count and each case's figures.
    counts: dict[str, dict[int, tuple[int, int]]] = {}
    for row in connection.query(
        "SELECT evaluation_id, case_index, COUNT(*) AS n, SUM(outcome = 'passed') AS passed"
        " FROM attempts WHERE outcome != 'withdrawn' GROUP BY evaluation_id, case_index"
    ):
        counts.setdefault(row["evaluation_id"], {})[row["case_index"]] = (
            row["n"],
            row["passed"],
        )
    attempted = {
        row["evaluation_id"]
        for row in connection.query("SELECT DISTINCT evaluation_id FROM attempts")
    }
    return [
        replace(
            _summary(connection, row, counts.get(row["id"], {})), attempted=row["id"] in attempted
        )
        for row in evaluations
    ]


def _summary(
    connection: StoreConnection, row: sqlite3.Row, counts: dict[int, tuple[int, int]]
) -> EvaluationSummary:
    settings = layout.settings_from_row(row)
    under: int | None = None
    decided: int | None = None
    if row["require"] is not None:
        figures = []
        for i in range(row["case_count"]):
            n, passed = counts.get(i, (0, 0))
            figures.append(CaseFigures(str(i), n, passed, 0, n - passed, row["k"], row["attempts"]))
        if evaluation_choice(settings, figures).by_looking:
            # The anytime-valid interval reads each case's outcomes in order.
            orders = _orders(connection, row["id"])
            figures = [replace(f, order=orders.get(i, b"")) for i, f in enumerate(figures)]
        under, decided = gate_counts(figures, settings)
    finished = [counts.get(i, (0, 0))[0] for i in range(row["case_count"])]
    reasons = _stop_reasons(connection, row["id"]) if settings.adaptive else {}
    return EvaluationSummary(
        id=row["id"],
        created=row["created"],
        finished=row["finished"],
        agent=row["agent"],
        version=row["version"],
        stack=row["stack"],
        label=row["label"],
        group=row["group_id"],
        cases=row["case_count"],
        attempts=row["attempts"],
        recorded=sum(finished),
        status=_status(connection, row["id"], row["status"]),
        under_gate=under,
        decided=decided,
        max_attempts=row["max_attempts"],
        definition=layout.definition_from_column(row["agent_definition"]),
        extent=extent(
            settings,
            row["case_count"],
            sum(finished),
            known_attempts(settings.attempts, finished),
            reasons,
        ),
    )


def _stop_reasons(connection: StoreConnection, evaluation_id: str) -> dict[int, StopReason]:
    """An adaptive evaluation's stored stop reasons, by case index."""
    rows = connection.query(
        "SELECT case_index, name, stop_reason FROM cases WHERE evaluation_id = ?",
        (evaluation_id,),
    )
    return layout.stop_reasons(rows, f"{connection.path}: evaluation {evaluation_id}")


def _orders(connection: StoreConnection, evaluation_id: str) -> dict[int, bytes]:
    """Per case, its counted outcomes by attempt number (1 a pass, 0 not), as the
    anytime-valid interval of an adaptive evaluation reads them."""
    orders: dict[int, bytearray] = {}
    for row in connection.query(
        "SELECT case_index, outcome = 'passed' AS passed FROM attempts"
        " WHERE evaluation_id = ? AND outcome != 'withdrawn' ORDER BY case_index, attempt",
        (evaluation_id,),
    ):
        orders.setdefault(row["case_index"], bytearray()).append(row["passed"])
    return {i: bytes(order) for i, order in orders.items()}


def _status(connection: StoreConnection, evaluation_id: str, stored: str) -> str:
    if stored != "running":
        return stored
    return "running" if is_claimed(connection.path.parent, evaluation_id) else "interrupted"


def load(connection: StoreConnection, evaluation_id: str) -> StoredEvaluation:
    """The evaluation with its settings, cases (checks recompiled) and records in order."""
    rows = connection.query("SELECT * FROM evaluations WHERE id = ?", (evaluation_id,))
    if not rows:
        raise UnknownEvaluation(f"no evaluation {evaluation_id!r} in the store ({connection.path})")
    row = rows[0]
    base_dir = Path(row["cases_path"]).parent
    case_rows = connection.query(
        "SELECT * FROM cases WHERE evaluation_id = ? ORDER BY case_index", (evaluation_id,)
    )
    cases = [
        layout.case_from_row(
            c, f"{connection.path}: evaluation {evaluation_id}: case {c['name']!r}", base_dir
        )
        for c in case_rows
    ]
    records: list[AttemptRecord] = []
    withdrawn: list[AttemptRecord] = []
    for r in connection.query(
        "SELECT a.*, t.transcript FROM attempts a LEFT JOIN transcripts t"
        " USING (evaluation_id, case_index, attempt, retake)"
        " WHERE a.evaluation_id = ? ORDER BY a.case_index, a.attempt, a.retake",
        (evaluation_id,),
    ):
        record = layout.record_from_row(r)
        (withdrawn if record.outcome is Outcome.WITHDRAWN else records).append(record)
    records = with_votes(records, votes_of(connection, evaluation_id))
    in_flight = [
        Slot(r["case_index"], r["attempt"], r["retake"])
        for r in connection.query(
            "SELECT case_index, attempt, retake FROM in_flight WHERE evaluation_id = ?"
            " ORDER BY case_index, attempt",
            (evaluation_id,),
        )
    ]
    return StoredEvaluation(
        id=row["id"],
        created=row["created"],
        finished=row["finished"],
        status=_status(connection, row["id"], row["status"]),
        error=row["error"],
        settings=layout.settings_from_row(row),
        cases=cases,
        cases_sha256=row["cases_sha256"],
        records=records,
        withdrawn=withdrawn,
        in_flight=in_flight,
        stop_reasons=layout.stop_reasons(
            case_rows, f"{connection.path}: evaluation {evaluation_id}"
        ),
        definition=layout.definition_from_column(row["agent_definition"]),
        status_reason=row["status_reason"],
    )


def newest_but(ref: str) -> int | None:
    """How many evaluations ``last`` (0) or ``last~N`` (N) skips from the newest; None otherwise."""
    if ref == "last":
        return 0
    head, tilde, count = ref.partition("~")
    if head == "last" and tilde and count.isdigit() and count.isascii():
        # SQLite's OFFSET is a 64-bit integer, and no store holds that many: a longer count
        # (or one too long for int()) names no evaluation, like any count past the oldest.
        return int(count) if len(count) < 19 else _MAX_OFFSET
    return None


#: The largest OFFSET SQLite takes; ``last~N`` past it skips every evaluation there is.
_MAX_OFFSET = 2**63 - 1
