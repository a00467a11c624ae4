"""The generic line (``passk-tui import jsonl``): one attempt a line, from any harness.

    {"case": "…", "attempt": 1, "outcome": "passed"|"wrong"|"errored", "output": …,
     "error": …, "duration": seconds, "usage": {"input_tokens": …, "output_tokens": …}}

Only ``case`` and ``outcome`` are required; without ``attempt``, a case's lines are its
attempts in file order. Read a line at a time, so a file of any size costs one line's memory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.imports.model import BadLog, ImportedAttempt, ImportedRun
from passk_tui.imports.sniff import wrong_format

TOOL = "jsonl"
OUTCOMES = {str(o): o for o in (Outcome.PASSED, Outcome.WRONG, Outcome.ERRORED)}
KEYS = ("case", "attempt", "outcome", "output", "error", "duration", "usage", "input")


def read_jsonl(paths: list[Path]) -> ImportedRun:
    run = ImportedRun(TOOL)
    counts: dict[str, int] = {}
    for path in paths:
        try:
            with path.open("rb") as file:
                for number, raw in enumerate(file, start=1):
                    if raw.strip():
                        run.add(_attempt(raw, f"{path}: line {number}", counts, path))
        except OSError as exc:
            raise BadLog(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not run.attempts:
        raise BadLog(f"{paths[0]}: no attempts (one JSON object a line)")
    return run


def _attempt(raw: bytes, where: str, counts: dict[str, int], path: Path) -> ImportedAttempt:
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        other = wrong_format(path, TOOL)
        raise BadLog(f"{where}: {other or f'not JSON ({exc})'}") from None
    if not isinstance(line, dict):
        raise BadLog(f"{where}: a line must be a JSON object")
    unknown = [key for key in line if key not in KEYS]
    if unknown:
        known = ", ".join(KEYS)
        other = wrong_format(path, TOOL)
        raise BadLog(f"{where}: {other or f'unknown key {unknown[0]!r} (known: {known})'}")
    case, outcome = line.get("case"), line.get("outcome")
    if not isinstance(case, str) or not case.strip():
        raise BadLog(f"{where}: case must be a non-empty string")
    if outcome not in OUTCOMES:
        raise BadLog(
            f"{where} ({case!r}): outcome must be passed, wrong or errored, got {json.dumps(outcome)}"
        )
    counts[case] = counts.get(case, 0) + 1
    attempt = line.get("attempt", counts[case])
    if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1:
        raise BadLog(
            f"{where} ({case!r}): attempt must be a whole number from 1, got {json.dumps(attempt)}"
        )
    duration = line.get("duration", 0)
    if (
        not isinstance(duration, int | float)
        or isinstance(duration, bool)
        or not 0 <= duration < float("inf")
    ):
        raise BadLog(f"{where} ({case!r}): duration must be seconds (a number >= 0)")
    error = line.get("error")
    return ImportedAttempt(
        case=case,
        attempt=attempt,
        outcome=OUTCOMES[outcome],
        output=line.get("output"),
        error=None if error is None else str(error),
        reason=None,
        duration=float(duration),
        usage=_usage(line.get("usage"), where),
        input=line.get("input"),
    )


def _usage(value: Any, where: str) -> dict[str, int] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadLog(f"{where}: usage must be an object of input_tokens and output_tokens")
    usage: dict[str, int] = {}
    for key in ("input_tokens", "output_tokens"):
        count = value.get(key)
        if count is None:
            continue
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise BadLog(f"{where}: usage.{key} must be a whole number >= 0")
        usage[key] = count
    return usage or None
