"""Writing evaluations: each new one, its attempts started and finished, how it ended, the
judge's votes as each Run ends, and a simulated user's messages as each lands. Each function is one transaction on the store's
connection (a failure is a StoreWriteError); ``Store`` answers with them.

The stack key is never passed in: no column can hold it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping, Sequence

from passk_tui.core.attempt import AttemptRecord, Turn, Vote
from passk_tui.core.checks.panel import Judged
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.inputs.bounds import bounded_output
from passk_tui.core.inputs.schema import FIELDS, Resume
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.core.text.decimals import exact_decimal
from passk_tui.store import rows as layout
from passk_tui.store.claims import Claim
from passk_tui.store.claims import claim as take_claim
from passk_tui.store.connection import StoreConnection
from passk_tui.store.errors import StoreBusy, StoreUnusable

#: What a resume writes anew: the columns of the settings it may change (``Resume``), and
#: whether attempts were added after some were seen.
RESUMABLE_COLUMNS = (
    *(f.column for f in FIELDS if f.column and f.resume is not Resume.MEASURED),
    "extended",
)


def create_evaluation(
    connection: StoreConnection,
    evaluation_id: str,
    settings: Settings,
    cases: Sequence[Case],
    cases_sha256: str,
    created: float | None = None,
    definition: Definition | None = None,
) -> None:
    """Record a new evaluation, its settings, what its agent resolved to (``definition``)
    and its cases as loaded, status ``running``."""
    with connection.writing("the new evaluation") as db:
        insert_evaluation(db, evaluation_id, settings, cases, cases_sha256, created, definition)


def write(
    connection: StoreConnection, evaluation_id: str, records: Sequence[AttemptRecord]
) -> None:
    """Keep a batch of finished (or withdrawn) attempts, no longer in flight, in one
    transaction, or raise StoreWriteError."""
    if not records:
        return
    with connection.writing("finished attempts") as db:
        insert_records(db, evaluation_id, records)


def start(
    connection: StoreConnection, evaluation_id: str, attempts: Sequence[PlannedAttempt]
) -> None:
    """Keep attempts as in flight, in one transaction, before any of their Runs is requested.

    Each stays until ``write`` stores its record (or its withdrawal), so a kill at any
    moment leaves every Run the stack may have started either recorded or in flight,
    for a resume to replay under the same key. An attempt already in flight (a resume
    replaying it) is kept once.
    """
    if not attempts:
        return
    with connection.writing("the attempts being started") as db:
        db.executemany(
            "INSERT OR IGNORE INTO in_flight (evaluation_id, case_index, attempt, retake)"
            " VALUES (?, ?, ?, ?)",
            [(evaluation_id, a.case_index, a.attempt, a.retake) for a in attempts],
        )


def finish(
    connection: StoreConnection,
    evaluation_id: str,
    status: str,
    error: str | None = None,
    reason: str | None = None,
) -> None:
    """Record how the evaluation ended: done, cancelled or failed (with its one-line error),
    and why when there is more to say (``budget spent``)."""
    with connection.writing("the evaluation's end") as db:
        db.execute(
            "UPDATE evaluations SET status = ?, error = ?, status_reason = ?, finished = ?"
            " WHERE id = ?",
            (status, layout.text(error), reason, time.time(), evaluation_id),
        )


def forget_cases(connection: StoreConnection, evaluation_id: str) -> None:
    """Drop the stored cases of an evaluation that failed before any attempt ran.

    Its row (settings, status, error, the cases file's hash) stays for history
    and resume, which reads the unchanged file again (``keep_cases``); a copy of
    the cases (58 MB for 100,000) would only pile up with every refused start.
    """
    with connection.writing("the failed start") as db:
        db.execute("DELETE FROM cases WHERE evaluation_id = ?", (evaluation_id,))


def keep_cases(connection: StoreConnection, evaluation_id: str, cases: Sequence[Case]) -> None:
    """Store the cases again of an evaluation whose cases were forgotten, as it resumes."""
    with connection.writing("the resumed evaluation's cases") as db:
        _insert_cases(db, evaluation_id, cases)


def add_case(connection: StoreConnection, evaluation_id: str, case: Case) -> int:
    """Append a case to an evaluation whose cases come as it runs (a pytest session's
    marked tests, each stored before its first attempt); its index."""
    with connection.writing("the new case") as db:
        (index,) = db.execute(
            "SELECT case_count FROM evaluations WHERE id = ?", (evaluation_id,)
        ).fetchone()
        _insert_cases(db, evaluation_id, [case], start=index)
        db.execute(
            "UPDATE evaluations SET case_count = case_count + 1 WHERE id = ?", (evaluation_id,)
        )
    return int(index)


def reopen(connection: StoreConnection, evaluation_id: str, settings: Settings) -> None:
    """A resume starts: status back to running, with the running settings given anew
    (and the attempts or the cap an extension raised)."""
    with connection.writing("the resumed evaluation") as db:
        db.execute(
            "UPDATE evaluations SET status = 'running', error = NULL, "
            f"{', '.join(f'{c} = :{c}' for c in RESUMABLE_COLUMNS)}, status_reason = NULL "
            "WHERE id = :id",
            {**layout.settings_row(settings), "id": evaluation_id},
        )


def keep_definition(
    connection: StoreConnection, evaluation_id: str, definition: Definition
) -> None:
    """Record what the agent resolves to now, for an evaluation that ran nothing before."""
    with connection.writing("the agent definition") as db:
        db.execute(
            "UPDATE evaluations SET agent_definition = ? WHERE id = ?",
            (layout.to_json(definition), evaluation_id),
        )


def keep_stop_reasons(
    connection: StoreConnection, evaluation_id: str, reasons: Mapping[int, str | None]
) -> None:
    """Record why cases stopped getting attempts (None: sampled again, by an extension)."""
    if not reasons:
        return
    with connection.writing("the cases' stop reasons") as db:
        db.executemany(
            "UPDATE cases SET stop_reason = ? WHERE evaluation_id = ? AND case_index = ?",
            [(text, evaluation_id, index) for index, text in reasons.items()],
        )


def claim(connection: StoreConnection, evaluation_id: str) -> Claim:
    """Hold the evaluation for this process; StoreBusy when another process runs it."""
    try:
        held = take_claim(connection.path.parent, evaluation_id)
    except OSError as exc:
        raise StoreUnusable(
            f"{connection.path.parent}: cannot write a lock file: {exc.strerror or exc}"
        ) from None
    if held is None:
        raise StoreBusy(f"evaluation {evaluation_id} is running in another passk-tui process")
    return held


def keep_vote(connection: StoreConnection, evaluation_id: str, attempt: Judged, vote: Vote) -> None:
    """Keep one vote (a vote of the same Run asked again replaces it), in one transaction."""
    text, _ = bounded_output(vote.text)
    with connection.writing("the judge's vote") as db:
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


def forget_votes(connection: StoreConnection, evaluation_id: str, attempt: Judged) -> None:
    """Drop an attempt's votes: they judged an answer it no longer has (its Run ran again)."""
    with connection.writing("the judge's votes") as db:
        db.execute(
            "DELETE FROM judge_votes WHERE evaluation_id = ? AND case_index = ?"
            " AND attempt = ? AND retake = ?",
            (evaluation_id, attempt.case_index, attempt.attempt, attempt.retake),
        )


def keep_user_message(
    connection: StoreConnection, evaluation_id: str, key: str, digest: str, turn: Turn
) -> None:
    """Keep what a simulated user wrote under its key (``digest``: the sha256 of what it was
    shown), in one transaction, before the agent is asked to answer it."""
    usage = None if turn.usage is None else layout.to_json(turn.usage)
    with connection.writing("the simulated user's message") as db:
        db.execute(
            "INSERT OR REPLACE INTO user_messages (evaluation_id, key, view_sha256, output,"
            " usage) VALUES (?, ?, ?, ?, ?)",
            (evaluation_id, key, digest, layout.to_json(turn.output), usage),
        )


def insert_evaluation(
    db: sqlite3.Connection,
    evaluation_id: str,
    settings: Settings,
    cases: Sequence[Case],
    cases_sha256: str,
    created: float | None,
    definition: Definition | None,
    status: str = "running",
) -> None:
    """The evaluation's row and its cases, inside the caller's transaction."""
    values = {
        **layout.settings_row(settings),
        "id": evaluation_id,
        "created": time.time() if created is None else created,
        "status": status,
        "cases_sha256": cases_sha256,
        "case_count": len(cases),
        "agent_definition": None if definition is None else layout.to_json(definition),
    }
    # The columns are the settings row's (``settings_row``) and ours: none is typed by hand.
    columns = ", ".join(values)
    db.execute(
        f"INSERT INTO evaluations ({columns}) VALUES ({', '.join(f':{c}' for c in values)})",
        values,
    )
    _insert_cases(db, evaluation_id, cases)


def insert_records(
    db: sqlite3.Connection, evaluation_id: str, records: Sequence[AttemptRecord]
) -> None:
    """Finished (or withdrawn) attempts, no longer in flight, inside the caller's transaction."""
    rows = (layout.record_row(evaluation_id, r) for r in records)
    db.executemany(
        "INSERT INTO attempts (evaluation_id, case_index, attempt, retake, case_name, key,"
        " outcome, status, output, reason, error, run_id, turn_id, started, ended,"
        " duration, usage, retries, finish_reason, node)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    _insert_transcripts(db, evaluation_id, records)
    db.executemany(
        "DELETE FROM in_flight WHERE evaluation_id = ? AND case_index = ? AND attempt = ?"
        " AND retake = ?",
        [(evaluation_id, r.case_index, r.attempt, r.retake) for r in records],
    )


def insert_imported_records(
    db: sqlite3.Connection, evaluation_id: str, records: Sequence[AttemptRecord]
) -> None:
    """An import's records (never in flight), inside the caller's transaction, with the
    columns they all share written once in the statement (``rows.IMPORTED_CONSTANTS``)."""
    columns = (*layout.IMPORTED_COLUMNS, *layout.IMPORTED_CONSTANTS)
    values = ("?",) * len(layout.IMPORTED_COLUMNS) + tuple(layout.IMPORTED_CONSTANTS.values())
    db.executemany(
        f"INSERT INTO attempts ({', '.join(columns)}) VALUES ({', '.join(values)})",
        (layout.imported_row(evaluation_id, r) for r in records),
    )
    _insert_transcripts(db, evaluation_id, records)


def _insert_transcripts(
    db: sqlite3.Connection, evaluation_id: str, records: Sequence[AttemptRecord]
) -> None:
    """Beside its attempt, in the same transaction: a record is never shown without it."""
    db.executemany(
        "INSERT INTO transcripts (evaluation_id, case_index, attempt, retake, transcript)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (evaluation_id, r.case_index, r.attempt, r.retake, layout.transcript_column(r))
            for r in records
            if r.transcript is not None
        ],
    )


def _insert_cases(
    db: sqlite3.Connection, evaluation_id: str, cases: Sequence[Case], start: int = 0
) -> None:
    db.executemany(
        "INSERT INTO cases (evaluation_id, case_index, name, input, check_spec, timeout,"
        " conversation) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                evaluation_id,
                index,
                layout.text(case.name),
                layout.to_json(case.input),
                None if case.spec is None else layout.to_json(case.spec),
                case.timeout,
                layout.conversation_column(case),
            )
            for index, case in enumerate(cases, start)
        ],
    )
