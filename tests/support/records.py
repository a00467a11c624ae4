"""ONE factory for AttemptRecords, and the store tests' cases and settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings

CASES = """\
[[cases]]
name = "one"
input = { q = "one", n = [1, 2] }
check = { all = [{ contains = "ONE", ignore_case = true }, { not_contains = "two" }] }

[[cases]]
name = "two"
input = "two"
check = { equals = "two" }
timeout = 2.5
"""


def record(
    case_index: int = 0, attempt: int = 1, outcome: Outcome = Outcome.PASSED, **kw: Any
) -> AttemptRecord:
    """One finished attempt: ``kw`` sets any other field of AttemptRecord. By default the store
    tests' attempt: case "one" or "two" by index, an answer with a list, run and turn ids,
    usage, a reason unless passed, "tool crashed" when errored, 1.5 s from 1000 + attempt."""
    fields = {
        "case_index": case_index,
        "case": ["one", "two"][case_index % 2],
        "attempt": attempt,
        "key": f"ev_x/c/{case_index}/{attempt}",
        "outcome": outcome,
        "status": "completed" if outcome is not Outcome.ERRORED else "failed",
        "output": {"answer": "ONE", "list": [1, None]},
        "reason": None if outcome is Outcome.PASSED else "expected 'two'",
        "error": "tool crashed" if outcome is Outcome.ERRORED else None,
        "run_id": "run_1",
        "turn_id": "turn_1",
        "started": 1000.0 + attempt,
        "ended": 1001.5 + attempt,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }
    fields.update(kw)
    return AttemptRecord(**fields)


def settings_for(cases_file: Path, **kw) -> Settings:
    options = {"agent": "demo", "version": 1, "cases_path": str(cases_file), "attempts": 3, "k": 2}
    options.update(kw)
    return Settings(**options)
