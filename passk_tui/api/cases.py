"""``passk_tui.Case``: a case given from Python, checked exactly as a cases file's row is."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.run.cases import cases_of_rows
from passk_tui.core.text.mentions import type_name

#: How a list of cases is named in its errors (``cases: item 2: case 'x': no input``).
LABEL = "cases"


@dataclass(frozen=True, slots=True)
class Case:
    """A named input (any JSON value) and the check of its answer, in the cases file's forms.

    ``check`` is what a cases file's ``check`` table holds, as a dict: ``{"equals": "391"}``,
    ``{"contains": "refund", "ignore_case": True}``, ``{"all": [...]}``; None only with
    ``completion_only=True``. ``timeout`` (seconds) overrides ``timeout=`` for this case.
    A conversation gives ``turns`` (the user's messages, in order) or ``user`` (a simulated
    user: ``{"agent", "instruction", "max_turns", "stop"}``) instead of ``input``.
    """

    name: str
    input: Any = None
    check: Mapping[str, Any] | None = None
    timeout: float | None = None
    turns: Sequence[str] | None = None
    user: Mapping[str, Any] | None = None


def written_cases(
    cases: Sequence[Case | Mapping[str, Any]], folder: Path, completion_only: bool
) -> Path:
    """Check ``cases`` and write them as a JSON Lines cases file in ``folder``; its path.

    The file is what the evaluation records and a resume re-reads, as for any cases file;
    it is named by its content, so the same cases are the same file. A ``command`` check
    runs in ``folder``: give it an absolute path or a program on PATH.
    """
    rows = [(f"item {number}", _row(case, number)) for number, case in enumerate(cases, 1)]
    cases_of_rows(rows, LABEL, folder, completion_only)
    try:
        text = "".join(
            json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n" for _, row in rows
        )
    except (TypeError, ValueError):
        raise InputError(f"{LABEL}: a check must be made of JSON values") from None
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.jsonl"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not path.is_file():
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot write the cases: {exc.strerror or exc}") from None
    return path


def _row(case: object, number: int) -> dict[str, Any]:
    """A case as a cases file's row: the keys it was given (None is not given)."""
    if isinstance(case, Case):
        row = {"name": case.name, "input": case.input, "check": case.check}
        row["timeout"] = case.timeout
        row["turns"] = None if case.turns is None else list(case.turns)
        row["user"] = None if case.user is None else dict(case.user)
    elif isinstance(case, Mapping):
        row = dict(case)
    else:
        raise InputError(
            f"{LABEL}: item {number}: a passk_tui.Case or a mapping, got {type_name(case)}"
        )
    if isinstance(row.get("check"), Mapping):
        row["check"] = dict(row["check"])
    return {key: value for key, value in row.items() if value is not None}
