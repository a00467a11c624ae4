"""Rerunning the failing cases: a cases file holding only them, and the settings that run it.

The failing cases are those with a wrong or errored attempt (what Results'
"problems only" shows). They are written as JSON Lines exactly as stored
(name, input, check), into a folder the caller names (the app: beside the
store), so the user's own folders are never written to.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.core.stats.rates.figures import CaseFigures


def failing_cases(cases: Sequence[Case], figures: Sequence[CaseFigures]) -> list[Case]:
    """The cases with at least one wrong or errored attempt, in file order."""
    return [case for case, f in zip(cases, figures, strict=True) if f.wrong or f.errored]


def _uses_command(spec: Any) -> bool:
    """Whether a check (or one inside all/any) runs a command, which runs in the cases folder."""
    if isinstance(spec, dict):
        return "command" in spec or any(_uses_command(v) for v in spec.values())
    if isinstance(spec, list):
        return any(_uses_command(v) for v in spec)
    return False


def cases_jsonl(cases: Sequence[Case]) -> str:
    """The cases as a JSON Lines cases file (a completion-only case has no check)."""
    lines = []
    for case in cases:
        row: dict[str, Any] = {"name": case.name, "input": case.input}
        if case.spec is not None:
            row["check"] = case.spec
        lines.append(json.dumps(row, ensure_ascii=False, allow_nan=False))
    return "\n".join(lines) + "\n"


def write_rerun(
    evaluation_id: str, settings: Settings, cases: Sequence[Case], folder: Path
) -> Settings:
    """Write ``cases`` to ``folder/<evaluation id>-failing.jsonl``; the settings that run them.

    Refused (InputError) for no cases, and for a ``command`` check, which runs in
    the original cases file's folder and would run elsewhere from the copy.
    """
    if not cases:
        raise InputError("no failing cases to rerun: every attempt passed")
    commands = [c.name for c in cases if _uses_command(c.spec)]
    if commands:
        raise InputError(
            f"case {commands[0]!r} has a command check, which runs beside its cases file: "
            "rerun it from a copy of that file instead"
        )
    path = folder / f"{evaluation_id}-failing.jsonl"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(cases_jsonl(cases))
        os.replace(temp, path)
    except OSError as exc:
        raise InputError(f"{path}: cannot write the rerun's cases: {exc.strerror or exc}") from None
    return replace(settings, cases_path=str(path))
