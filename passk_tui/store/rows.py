"""Rows <-> the domain: how settings, cases and attempt records are laid out in the store."""

from __future__ import annotations

import json
import sqlite3
from fractions import Fraction
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.cases import Case
from passk_tui.core.checks import compile_check
from passk_tui.core.errors import InputError
from passk_tui.core.settings import Settings
from passk_tui.store.errors import StoreUnusable


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def settings_row(settings: Settings) -> dict[str, Any]:
    return {
        "stack": settings.stack,
        "agents_path": settings.agents_path,
        "agent": settings.agent,
        "version": settings.version,
        "attempts": settings.attempts,
        "k": settings.k,
        "require": None if settings.require is None else str(settings.require),  # exact: '9/10'
        "completion_only": int(settings.completion_only),
        "concurrency": settings.concurrency,
        "timeout": settings.timeout,
        "cases_path": settings.cases_path,
    }


def settings_from_row(row: sqlite3.Row) -> Settings:
    """The settings ``settings_row`` laid out, read back from an ``evaluations`` row."""
    return Settings(
        agent=row["agent"],
        version=row["version"],
        cases_path=row["cases_path"],
        attempts=row["attempts"],
        k=row["k"],
        completion_only=bool(row["completion_only"]),
        require=None if row["require"] is None else Fraction(row["require"]),
        concurrency=row["concurrency"],
        timeout=row["timeout"],
        stack=row["stack"],
        agents_path=row["agents_path"],
    )


def record_row(evaluation_id: str, r: AttemptRecord) -> tuple[Any, ...]:
    return (
        evaluation_id,
        r.case_index,
        r.attempt,
        r.case,
        r.key,
        str(r.outcome),
        r.status,
        to_json(r.output),
        r.reason,
        r.error,
        r.run_id,
        r.turn_id,
        r.started,
        r.ended,
        r.duration,
        None if r.usage is None else to_json(r.usage),
    )


def record_from_row(row: sqlite3.Row) -> AttemptRecord:
    return AttemptRecord(
        case_index=row["case_index"],
        case=row["case_name"],
        attempt=row["attempt"],
        key=row["key"],
        outcome=Outcome(row["outcome"]),
        status=row["status"],
        output=json.loads(row["output"]),
        reason=row["reason"],
        error=row["error"],
        run_id=row["run_id"],
        turn_id=row["turn_id"],
        started=row["started"],
        ended=row["ended"],
        usage=None if row["usage"] is None else json.loads(row["usage"]),
    )


def case_from_row(row: sqlite3.Row, where: str, base_dir: Path) -> Case:
    """A stored case with its check compiled again from the stored spec."""
    spec = None if row["check_spec"] is None else json.loads(row["check_spec"])
    try:
        check = None if spec is None else compile_check(spec, f"{where}: check", base_dir)
    except InputError as exc:
        raise StoreUnusable(f"stored check no longer compiles: {exc}") from None
    return Case(row["name"], json.loads(row["input"]), check, spec, row["timeout"])
