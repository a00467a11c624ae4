"""Imported evaluations: kept whole in one transaction, found again by what was imported.

An import is stored as any evaluation is (its row, its cases, its records, status done),
so every face reads it unchanged; only its ``agent_definition`` (kind ``import``) says
where it came from, with a fingerprint of the files and the mapping that made it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.store import rows as layout
from passk_tui.store.connection import StoreConnection
from passk_tui.store.writing import insert_evaluation, insert_imported_records


def keep_imported(
    connection: StoreConnection,
    evaluation_id: str,
    settings: Settings,
    cases: Sequence[Case],
    cases_sha256: str,
    definition: Definition,
    records: Sequence[AttemptRecord],
    created: float,
    transcripts: Iterable[tuple[int, int, str]] = (),
) -> None:
    """The whole evaluation in one transaction, done at ``created``: a kill or a failed
    write leaves nothing. ``transcripts``: (case index, attempt, text as a record's is
    written) of records whose transcript the reader kept as text, drawn last (an error
    raised while drawing them also leaves nothing)."""
    with connection.writing("the imported evaluation") as db:
        insert_evaluation(
            db, evaluation_id, settings, cases, cases_sha256, created, definition, status="done"
        )
        insert_imported_records(db, evaluation_id, records)
        db.executemany(
            "INSERT INTO transcripts (evaluation_id, case_index, attempt, retake, transcript)"
            " VALUES (?, ?, ?, 0, ?)",
            ((evaluation_id, *place) for place in transcripts),
        )
        db.execute("UPDATE evaluations SET finished = ? WHERE id = ?", (created, evaluation_id))


def find_imported(connection: StoreConnection, fingerprint: str) -> str | None:
    """The id of the evaluation an earlier import of the same files made; None if none."""
    rows = connection.query(
        "SELECT id FROM evaluations WHERE json_extract(agent_definition, '$.kind') = 'import'"
        " AND json_extract(agent_definition, '$.fingerprint') = ? ORDER BY created LIMIT 1",
        (fingerprint,),
    )
    return str(rows[0]["id"]) if rows else None


def keep_view(connection: StoreConnection, evaluation_id: str, settings: Settings) -> None:
    """The settings given now to an imported evaluation shown again (k, gate, confidence)."""
    row = layout.settings_row(settings)
    with connection.writing("the imported evaluation's settings") as db:
        db.execute(
            "UPDATE evaluations SET k = ?, require = ?, confidence = ?, family_wise = ?"
            " WHERE id = ?",
            (row["k"], row["require"], row["confidence"], row["family_wise"], evaluation_id),
        )
