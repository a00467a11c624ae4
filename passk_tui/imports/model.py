"""What a reader makes of another tool's files: attempts by case, and where they came from."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.core.errors import InputError
from passk_tui.core.transcript import Transcript


class BadLog(InputError):
    """A file that cannot be imported: the message names the file, the record and the problem."""


@dataclass(slots=True)
class ImportedAttempt:
    """One attempt as the tool recorded it, its verdict already mapped to an outcome.

    Not frozen, though never changed once read: an import makes one per sample epoch
    (50,000 for a big inspect log), and a frozen dataclass's ``__init__`` sets each field
    through ``object.__setattr__``, five times the cost (0.24 s of such a log's 50,000)."""

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

    stored_transcripts: list[Iterable[tuple[str, int, str]]] = field(default_factory=list)
    """Transcripts as the store writes them (case, attempt, text), for attempts read with
    ``transcript`` None: inspect's, whose conversations another process reads while this one
    maps and stores the outcomes. Drawn once, after the attempts (``transcripts``)."""
    closers: list[Callable[[], None]] = field(default_factory=list)
    """What ``close`` ends: that other process, when its transcripts were never drawn."""

    def add(self, attempt: ImportedAttempt) -> None:
        self.attempts.append(attempt)

    def transcripts(self) -> Iterator[tuple[str, int, str]]:
        """The stored transcripts, each once; BadLog when a file's conversation is damaged."""
        for source in self.stored_transcripts:
            yield from source

    def close(self) -> None:
        for close in self.closers:
            close()

    def with_transcripts(self) -> ImportedRun:
        """This run with each stored transcript back in its attempt as a ``Transcript``, as
        the store reads it back (for a caller that reads a log without storing it)."""
        try:
            texts = {(case, attempt): text for case, attempt, text in self.transcripts()}
        finally:
            self.close()
        if texts:
            self.attempts = [
                replace(a, transcript=Transcript.from_json(json.loads(texts[a.case, a.attempt])))
                if (a.case, a.attempt) in texts
                else a
                for a in self.attempts
            ]
        self.stored_transcripts = []
        return self


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


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def json_items(data: bytes) -> Iterator[Any]:
    """The items of a JSON array, decoded one at a time: a list of 50,000 objects is never
    held whole (only its text is). A document that is not an array is read whole and has no
    items; ValueError where the text is not JSON, as ``json.loads`` would raise it."""
    text = data.decode(json.detect_encoding(data), "surrogatepass")
    del data  # the text alone is held while the items are read
    at = _SPACE.match(text).end()  # type: ignore[union-attr]  # always matches
    if not text.startswith("[", at):
        json.loads(text)
        return
    at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", at):
        return _end(text, at + 1)
    while True:
        value, at = _DECODER.raw_decode(text, at)
        yield value
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if text.startswith(",", at):
            at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        elif text.startswith("]", at):
            return _end(text, at + 1)
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, at)


def _end(text: str, at: int) -> None:
    """Nothing but space after the array, as ``json.loads`` requires."""
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
    if at != len(text):
        raise json.JSONDecodeError("Extra data", text, at)


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
