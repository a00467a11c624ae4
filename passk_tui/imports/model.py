"""What a reader makes of another tool's files: attempts by case, and where they came from."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.core.errors import InputError
from passk_tui.core.transcript import Transcript


class BadLog(InputError):
    """A file that cannot be imported: the message names the file, the record and the problem."""


@dataclass(frozen=True, slots=True)
class ImportedAttempt:
    """One attempt as the tool recorded it, its verdict already mapped to an outcome."""

    case: str
    attempt: int
    outcome: Outcome
    output: Any = None
    reason: str | None = None
    """Why it did not pass, as the tool said it (a score's explanation, an assertion's reason)."""
    error: str | None = None
    """Why it errored (the tool's error, a limit hit), named."""
    started: float = 0.0
    duration: float = 0.0
    usage: dict[str, int] | None = None
    input: Any = None
    """The case's input where the log holds it (the first attempt's is kept)."""
    transcript: Transcript | None = None
    """The conversation where the log holds it (``imports.conversation``); None when it
    holds none, or one that says no more than the input and the answer."""


@dataclass(slots=True)
class ImportedRun:
    """Every attempt read from the files of one run, with what names the run and the tool."""

    tool: str
    """The format's name, as ``passk-tui import`` takes it (``inspect``, ``promptfoo``...)."""
    attempts: list[ImportedAttempt] = field(default_factory=list)
    tool_version: str | None = None
    agent: str | None = None
    """What was evaluated, as the log names it (a model, a provider label); None: not said."""
    notes: list[str] = field(default_factory=list)
    """What the mapping chose, said on stderr beside the counts (the scorer read...)."""
    order: list[str] = field(default_factory=list)
    """The cases in the tool's own order where the log says it (inspect's dataset); cases
    not in it follow in the order their first attempt was read."""
    reported: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The tool's own per-case figures where the log holds them (inspect's reducers),
    kept for the checks that ours equal theirs."""

    def add(self, attempt: ImportedAttempt) -> None:
        self.attempts.append(attempt)


def record_place(index: int | str, case: str | None = None) -> str:
    """How a message names a record: ``record 3`` or ``record 3 (sample 'x')``."""
    where = f"record {index}" if isinstance(index, int) else str(index)
    return f"{where} ({case!r})" if case is not None else where


def read_json_file(path: Path, tool: str) -> Any:
    """A whole JSON file; BadLog naming what the file is when it is not JSON."""
    try:
        with path.open("rb") as file:
            return json.load(file)
    except OSError as exc:
        raise BadLog(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise not_a(path, tool, f"not JSON ({exc})") from None


def not_a(path: Path, tool: str, problem: str) -> BadLog:
    """The error for a file whose shape is not ``tool``'s: what it is when another tool's
    start is recognised ("this is a promptfoo results file; use ..."), else ``problem``."""
    from passk_tui.imports.sniff import wrong_format

    return BadLog(f"{path}: {wrong_format(path, tool) or problem}")


def seconds_of(text: Any) -> float:
    """An ISO 8601 time as epoch seconds; 0 when absent or unreadable (the start is unknown)."""
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return 0.0


def number_of(value: Any) -> float:
    """A JSON number as a float; 0 for anything else."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def object_of(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a field a log may leave out)."""
    return value if isinstance(value, dict) else {}
