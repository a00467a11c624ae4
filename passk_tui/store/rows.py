"""Rows <-> the domain: how settings, cases and attempt records are laid out in the store.

Every value from outside is made storable here, so that no answer, error or id
can make a write fail: lone surrogates are written as their escapes
(``core.inputs.bounds.storable_text``), ids that are not strings as their JSON text,
and an answer past ``OUTPUT_LIMIT`` characters keeps its start only. Such a cut
answer is laid out as the JSON string of its start, a space and its full length
(``"abc…" 209715200``): not one JSON value, so it cannot be mistaken for an
answer that was kept whole.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.checks.kinds import compile_check
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import (
    bounded_output,
    storable_json,
    storable_text,
    storable_transcript,
)
from passk_tui.core.inputs.conversation import user_from_json
from passk_tui.core.inputs.price import price_from_texts
from passk_tui.core.inputs.schema import FIELDS, Kind, Resume
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.text.decimals import exact_decimal
from passk_tui.core.transcript import Transcript
from passk_tui.store.errors import StoreUnusable

_DECODER = json.JSONDecoder()


def to_json(value: Any) -> str:
    """Compact JSON text that UTF-8 can encode, whatever strings ``value`` holds."""
    return storable_json(value)


def text(value: Any) -> str | None:
    """A text column from an outside value: None, storable text, or a non-string's JSON."""
    if value is None:
        return None
    return storable_text(value) if isinstance(value, str) else to_json(value)


def definition_from_column(column: str | None) -> dict[str, Any] | None:
    """A stored agent definition; None for one stored before definitions were (or unreadable:
    what was measured is then unknown, which is no reason to refuse the evaluation)."""
    if column is None:
        return None
    try:
        value = json.loads(column)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def output_column(output: Any, output_size: int | None) -> str:
    """The answer as stored: its JSON, or a cut answer's start and full length (module doc)."""
    kept, cut_size = bounded_output(output)
    size = cut_size if cut_size is not None else output_size
    return to_json(kept) if size is None else f"{to_json(kept)} {size}"


def output_from_column(column: str) -> tuple[Any, int | None]:
    """(output, full length or None), as ``output_column`` laid them out."""
    value, end = _DECODER.raw_decode(column)
    rest = column[end:].strip()
    return value, int(rest) if rest else None


class Codec(NamedTuple):
    """How values of one type (``core.inputs.field.Kind``) are laid out in a column."""

    #: The column's type, as a store that lacks it gains it (``store.schema``).
    sql: str
    #: A value (never None) to what is stored.
    write: Callable[[Any], Any]
    #: What is stored (never NULL) to the value.
    read: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


#: One codec per value type: a stored setting is laid out by its type, never by hand.
CODECS = {
    Kind.TEXT: Codec("TEXT", text, _same),
    Kind.WHOLE: Codec("INTEGER", _same, _same),
    Kind.NUMBER: Codec("REAL", _same, _same),
    Kind.SWITCH: Codec("INTEGER NOT NULL DEFAULT 0", int, bool),
    Kind.RATIO: Codec("TEXT", str, Fraction),  # exact: '9/10'
    Kind.MONEY: Codec("TEXT", exact_decimal, Fraction),  # exact decimal text, never a float
}
#: The stored settings that are Settings attributes, by column.
_STORED = tuple(f for f in FIELDS if f.column is not None and f.setting is not None)
#: The price's two columns (in, out): one Settings value, the Price.
_PRICE_COLUMNS = tuple(f.column for f in FIELDS if f.resume is Resume.PRICE and f.column)
#: The session's own record beside the fields' (no flag sets it: ``Settings.extended``).
_EXTENDED = "extended"


def setting_columns() -> dict[str, str]:
    """Every settings column with its type: what an older store is given when it lacks one."""
    fields = (*_STORED, *(f for f in FIELDS if f.column in _PRICE_COLUMNS))
    columns = {f.column: CODECS[f.kind].sql for f in fields if f.column is not None}
    return {**columns, _EXTENDED: CODECS[Kind.SWITCH].sql}


def settings_row(settings: Settings) -> dict[str, Any]:
    """The settings as the ``evaluations`` row's columns, each by its type's codec."""
    row: dict[str, Any] = {_EXTENDED: int(settings.extended)}
    for f in _STORED:
        assert f.setting is not None and f.column is not None
        value = getattr(settings, f.setting)
        row[f.column] = None if value is None else CODECS[f.kind].write(value)
    texts = (None, None) if settings.price is None else settings.price.texts()
    row.update(zip(_PRICE_COLUMNS, texts, strict=True))
    return row


def settings_from_row(row: sqlite3.Row) -> Settings:
    """The settings ``settings_row`` laid out, read back from an ``evaluations`` row. A NULL
    takes the setting's default: a column a store gained after the row was written."""
    values: dict[str, Any] = {_EXTENDED: bool(row[_EXTENDED])}
    for f in _STORED:
        assert f.setting is not None and f.column is not None
        if row[f.column] is not None:
            values[f.setting] = CODECS[f.kind].read(row[f.column])
    price = price_from_texts((row[_PRICE_COLUMNS[0]], row[_PRICE_COLUMNS[1]]))
    return Settings(**values, price=price)


def record_row(evaluation_id: str, r: AttemptRecord) -> tuple[Any, ...]:
    return (
        evaluation_id,
        r.case_index,
        r.attempt,
        r.retake,
        text(r.case),
        r.key,
        str(r.outcome),
        text(r.status),
        output_column(r.output, r.output_size),
        text(r.reason),
        text(r.error),
        text(r.run_id),
        text(r.turn_id),
        r.started,
        r.ended,
        r.duration,
        None if r.usage is None else to_json(r.usage),
        r.retries,
        text(r.finish_reason),
        text(r.node),
    )


#: The attempt columns an import fills, in ``imported_row``'s order; the others hold the same
#: value for every record an import makes (``IMPORTED_CONSTANTS``).
IMPORTED_COLUMNS = (
    "evaluation_id", "case_index", "attempt", "case_name", "key", "outcome", "status",
    "output", "reason", "error", "started", "ended", "duration", "usage",
)  # fmt: skip
#: What an imported record holds in the other columns: no retake, no retry, no Run, Turn,
#: finish reason or node. Written into the statement, not bound on each of 50,000 rows:
#: binding is most of the cost of an insert (0.38 -> 0.25 s of CPU for 50,000).
IMPORTED_CONSTANTS = {
    "retake": "0", "retries": "0", "run_id": "NULL", "turn_id": "NULL",
    "finish_reason": "NULL", "node": "NULL",
}  # fmt: skip


def imported_row(evaluation_id: str, r: AttemptRecord) -> tuple[Any, ...]:
    """An imported record's ``IMPORTED_COLUMNS``; the rest are ``IMPORTED_CONSTANTS``, as the
    records ``evaluations.imported`` makes always hold (a test reads them back equal)."""
    return (
        evaluation_id,
        r.case_index,
        r.attempt,
        text(r.case),
        r.key,
        str(r.outcome),
        r.status,
        output_column(r.output, r.output_size),
        text(r.reason),
        text(r.error),
        r.started,
        r.ended,
        r.duration,
        None if r.usage is None else to_json(r.usage),
    )


def record_from_row(row: sqlite3.Row) -> AttemptRecord:
    output, output_size = output_from_column(row["output"])
    return AttemptRecord(
        case_index=row["case_index"],
        case=row["case_name"],
        attempt=row["attempt"],
        key=row["key"],
        outcome=Outcome(row["outcome"]),
        status=row["status"],
        output=output,
        reason=row["reason"],
        error=row["error"],
        run_id=row["run_id"],
        turn_id=row["turn_id"],
        started=row["started"],
        ended=row["ended"],
        usage=None if row["usage"] is None else json.loads(row["usage"]),
        output_size=output_size,
        retake=row["retake"],
        retries=row["retries"],
        finish_reason=row["finish_reason"],
        node=row["node"],
        transcript=_transcript_from(row),
    )


def transcript_column(record: AttemptRecord) -> str:
    """An attempt's transcript as stored: its JSON, bounded (``Transcript.bounded``)."""
    assert record.transcript is not None
    return storable_transcript(record.transcript)


def _transcript_from(row: sqlite3.Row) -> Transcript | None:
    """The stored transcript of an attempt row read with it; None when it has none."""
    if "transcript" not in row.keys() or row["transcript"] is None:  # noqa: SIM118 (a Row)
        return None
    return Transcript.from_json(json.loads(row["transcript"]))


def conversation_column(case: Case) -> str | None:
    """A case's ``turns`` or simulated ``user`` as stored; None for a case of one input."""
    return to_json(case.conversation()) if case.conversational else None


def stop_reasons(case_rows: Sequence[sqlite3.Row], where: str) -> dict[int, StopReason]:
    """The stored stop reasons by case index; a text that names none makes the store unusable."""
    reasons = {}
    for row in case_rows:
        if row["stop_reason"] is not None:
            try:
                reasons[row["case_index"]] = StopReason.parse(row["stop_reason"])
            except ValueError as exc:
                raise StoreUnusable(f"{where}: case {row['name']!r}: {exc}") from None
    return reasons


def case_from_row(row: sqlite3.Row, where: str, base_dir: Path) -> Case:
    """A stored case with its check compiled again from the stored spec."""
    spec = None if row["check_spec"] is None else json.loads(row["check_spec"])
    try:
        check = None if spec is None else compile_check(spec, f"{where}: check", base_dir)
    except InputError as exc:
        raise StoreUnusable(f"stored check no longer compiles: {exc}") from None
    stored = None if row["conversation"] is None else json.loads(row["conversation"])
    turns = None if stored is None or "turns" not in stored else tuple(stored["turns"])
    user = None if stored is None or "user" not in stored else user_from_json(stored["user"])
    return Case(row["name"], json.loads(row["input"]), check, spec, row["timeout"], turns, user)
