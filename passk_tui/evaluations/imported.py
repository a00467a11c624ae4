"""Another tool's run stored as an evaluation of ours (``passk-tui import``), or found again.

The files are read whole before anything is stored, and stored in one transaction, so a
bad record or a kill leaves nothing half-imported. The same files imported again (same
format, same bytes, same mapping) are the evaluation already stored: it is shown with the
settings given now (k, gate, confidence), never copied.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.agent_definition import imported_definition
from passk_tui.core.inputs.bounds import bounded_output
from passk_tui.core.inputs.file_digests import FileDigests, sha256_of
from passk_tui.core.inputs.settings import Settings, default_k
from passk_tui.core.run.attempt_keys import new_evaluation_id
from passk_tui.core.run.cases import Case
from passk_tui.evaluations.recorded import RecordedEvaluation
from passk_tui.evaluations.resume import NothingToRun
from passk_tui.evaluations.settings_text import FAMILY_WISE_NEEDS
from passk_tui.imports.inspect_log import inspect_run
from passk_tui.imports.jsonl import read_jsonl
from passk_tui.imports.lm_eval import read_lm_eval
from passk_tui.imports.model import BadLog, ImportedAttempt, ImportedRun
from passk_tui.imports.promptfoo import read_promptfoo
from passk_tui.imports.tau import read_tau
from passk_tui.store import Store, StoredEvaluation

#: Each format ``passk-tui import`` takes, and its reader (files, options -> attempts).
Reader = Callable[[list[Path], dict[str, Any]], ImportedRun]
READERS: dict[str, Reader] = {
    "inspect": lambda paths, options: inspect_run(
        paths, options.get("pass_value"), options.get("transcripts", True)
    ),
    "promptfoo": lambda paths, options: read_promptfoo(paths),
    "tau-bench": lambda paths, options: read_tau(paths),
    "lm-eval": lambda paths, options: read_lm_eval(paths, options.get("metric")),
    "jsonl": lambda paths, options: read_jsonl(paths),
}


@dataclass(frozen=True, slots=True)
class ImportView:
    """The settings given with an import: how it is read, not what was measured."""

    k: int | None = None
    require: Fraction | None = None
    confidence: float | None = None
    family_wise: bool = False
    agent: str | None = None
    version: int | None = None


@dataclass(frozen=True)
class Imported:
    """An imported evaluation, stored: its id, whether it was already, and what was said."""

    evaluation_id: str
    stored: StoredEvaluation
    again: bool
    """The same files were imported before: this is that evaluation, shown anew."""
    lines: list[str] = field(default_factory=list)
    """What the mapping did, one line each, for stderr."""


def import_files(
    tool: str,
    paths: Sequence[Path],
    options: dict[str, Any],
    view: ImportView,
    store: Store | None = None,
    digests: FileDigests | None = None,
) -> Imported:
    """Read ``paths`` as ``tool``'s and store them as one evaluation (or find the one stored).
    ``digests``: the files' hashing, started by the caller as soon as it named them (the
    command line's, to overlap loading modules); None: hashed here, plainly."""
    reader = READERS.get(tool)
    if reader is None:
        raise InputError(f"import: unknown format {tool!r}; one of {', '.join(READERS)}")
    if view.family_wise and (view.require is None or view.confidence is None):
        raise InputError(f"--family-wise: {FAMILY_WISE_NEEDS}")
    # No thread where the caller started none (a Python caller's): nothing to overlap it with.
    hashed = digests.digests() if digests is not None else [sha256_of(path) for path in paths]
    files = [(str(path.resolve()), digest) for path, digest in zip(paths, hashed, strict=True)]
    fingerprint = _fingerprint(tool, [digest for _, digest in files], options)
    store = store if store is not None else Store.open()
    found = store.find_imported(fingerprint)
    if found is not None:
        stored = store.load(found)
        settings = _viewed(stored.settings, view, _fewest(stored.records))
        store.keep_view(found, settings)
        return Imported(found, store.load(found), again=True, lines=[_again_line(stored)])
    run = reader([Path(p) for p in paths], options)
    try:
        return _stored(tool, run, paths, files, fingerprint, options, view, store)
    finally:
        run.close()


def _stored(
    tool: str,
    run: ImportedRun,
    paths: Sequence[Path],
    files: list[tuple[str, str]],
    fingerprint: str,
    options: dict[str, Any],
    view: ImportView,
    store: Store,
) -> Imported:
    """The run read, stored as a new evaluation: its transcripts drawn last, in the same
    transaction (an inspect archive's are still being read by another process meanwhile)."""
    cases, records, places = _cases_and_records(run, paths[0], fingerprint)
    run.attempts.clear()  # the records hold it all now: 50,000 attempts need not be held twice
    fewest = _fewest(records)
    settings = Settings(
        agent=view.agent or run.agent or tool,
        version=1 if view.version is None else view.version,
        cases_path=files[0][0],
        attempts=fewest,
        k=default_k(fewest),
    )
    settings = _viewed(settings, view, fewest)
    definition = imported_definition(tool, run.tool_version, files, options, fingerprint)
    evaluation_id = new_evaluation_id()
    now = time.time()
    transcripts = ((*places[case, attempt], text) for case, attempt, text in run.transcripts())
    store.keep_imported(
        evaluation_id, settings, cases, fingerprint, definition, records, now, transcripts
    )
    # As stored, without reading 50,000 records back: the same values the store now holds,
    # but for the transcripts drawn from the run, held by the store alone (whoever shows one,
    # the Case screen or an export, loads the evaluation).
    stored = StoredEvaluation(
        evaluation_id, now, now, "done", None, settings, cases, fingerprint, records,
        definition=definition,
    )  # fmt: skip
    lines = [_counts_line(records, len(cases), run.notes)]
    return Imported(evaluation_id, stored, again=False, lines=lines)


def _viewed(settings: Settings, view: ImportView, attempts: int) -> Settings:
    k = settings.k if view.k is None else view.k
    if not 1 <= k <= attempts:
        raise InputError(
            f"--k: must be between 1 and the fewest attempts of a case ({attempts}), got {k}"
        )
    return replace(
        settings,
        k=k,
        require=view.require,
        confidence=view.confidence,
        family_wise=view.family_wise,
    )


def _cases_and_records(
    run: ImportedRun, first: Path, fingerprint: str
) -> tuple[list[Case], list[AttemptRecord], dict[tuple[str, int], tuple[int, int]]]:
    """Cases in the tool's order (``ImportedRun.order``, then as first read); each case's attempts numbered 1..n in
    the tool's order (epochs, repeats, trials), so no attempt is missing in between; and where
    each of the tool's (case, attempt) went: (case index, attempt number)."""
    by_case: dict[str, list[ImportedAttempt]] = {name: [] for name in run.order}
    for attempt in run.attempts:
        by_case.setdefault(attempt.case, []).append(attempt)
    cases: list[Case] = []
    records: list[AttemptRecord] = []
    places: dict[tuple[str, int], tuple[int, int]] = {}
    keys = f"import-{fingerprint[:16]}"
    named = [(name, attempts) for name, attempts in by_case.items() if attempts]
    for index, (name, attempts) in enumerate(named):
        attempts.sort(key=lambda a: a.attempt)
        for before, after in pairwise(attempts):
            if before.attempt == after.attempt:
                raise BadLog(f"{first}: case {name!r}: attempt {after.attempt} appears twice")
        cases.append(Case(name=name, input=attempts[0].input, check=None))
        for number, attempt in enumerate(attempts, start=1):
            records.append(_record(index, number, attempt, keys))
            places[name, attempt.attempt] = (index, number)
    return cases, records, places


def _record(index: int, number: int, attempt: ImportedAttempt, keys: str) -> AttemptRecord:
    """The attempt as a record of ours; ``keys``: what its key starts with (the import's)."""
    output, size = bounded_output(attempt.output)
    return AttemptRecord(
        case_index=index,
        case=attempt.case,
        attempt=number,
        key=f"{keys}-{index}-{number}",
        outcome=attempt.outcome,
        status="failed" if attempt.outcome is Outcome.ERRORED else "completed",
        output=output,
        output_size=size,
        reason=attempt.reason,
        error=attempt.error,
        run_id=None,
        turn_id=None,
        started=attempt.started,
        ended=attempt.started + attempt.duration,
        usage=attempt.usage,
        transcript=attempt.transcript,
    )


def _fewest(records: Sequence[AttemptRecord]) -> int:
    counts: dict[int, int] = {}
    for r in records:
        counts[r.case_index] = counts.get(r.case_index, 0) + 1
    return min(counts.values())


def _counts_line(records: Sequence[AttemptRecord], cases: int, notes: list[str]) -> str:
    tally = {outcome: 0 for outcome in (Outcome.PASSED, Outcome.WRONG, Outcome.ERRORED)}
    for r in records:
        tally[r.outcome] += 1
    line = (
        f"imported {len(records)} attempts of {cases} cases: {tally[Outcome.PASSED]} passed, "
        f"{tally[Outcome.WRONG]} wrong, {tally[Outcome.ERRORED]} errored"
    )
    return f"{line} ({'; '.join(notes)})" if notes else line


def _again_line(stored: StoredEvaluation) -> str:
    return f"already imported as evaluation {stored.id}: shown with the settings given now"


def _fingerprint(tool: str, digests: list[str], options: dict[str, Any]) -> str:
    """What makes two imports the same: the format, the files' bytes (in any order), the mapping."""
    text = json.dumps([tool, sorted(digests), options], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def shown(imported: Imported, store: Store) -> RecordedEvaluation:
    """The stored import as the faces read a finished run of ours (nothing left to run)."""
    stored = imported.stored
    return RecordedEvaluation(
        stored.id,
        stored.cases,
        stored.settings,
        NothingToRun(stored.definition or {}),
        store=store,
        claim=store.claim(stored.id),
        previous=stored.records,
        definition=stored.definition,
    )
