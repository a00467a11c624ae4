"""inspect_ai logs (``.eval`` archives and ``.json`` files): each epoch of a sample an attempt
(``inspect_samples`` says what decides it). The score read is the first scorer's in the log's
header, else the sample's first.

A ``.eval`` archive is read from its summaries (scores, errors, limits, usage and times, a
tenth of the bytes of whole samples), so the answer kept is the scorer's reading of it; one
without summaries is read a sample member at a time (``zip_members``). A ``.json`` log holds
whole samples, each answer as the model gave it.
"""

from __future__ import annotations

import itertools
import json
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from passk_tui.imports.conversation import transcript_text
from passk_tui.imports.inspect_samples import (
    InspectSample,
    attempt_of,
    sample_object,
    sample_of,
    summaries_in,
)
from passk_tui.imports.model import (
    BadLog,
    ImportedAttempt,
    ImportedRun,
    not_a,
    read_json_file,
)
from passk_tui.imports.transcripts_aside import TranscriptsAside
from passk_tui.imports.zip_members import Archive, Member

TOOL = "inspect"


def read_inspect(
    paths: list[Path], pass_value: str | None = None, transcripts: bool = True
) -> ImportedRun:
    """Every sample epoch of these logs, each attempt with its transcript as an object
    (``inspect_run``'s, drawn back: what a caller sees that reads a log without storing it)."""
    return inspect_run(paths, pass_value, transcripts).with_transcripts()


def inspect_run(
    paths: list[Path], pass_value: str | None = None, transcripts: bool = True
) -> ImportedRun:
    """Every sample epoch of these logs; several logs of one run (one per task) together.
    Without ``transcripts`` an archive's sample members are never read (its summaries hold
    the outcomes) and no attempt keeps its conversation. With them, the conversations are
    the run's ``stored_transcripts``: an archive's read by a second process meanwhile
    (``transcripts_aside``); ``close`` the run when it is done with."""
    logs: list[_Log] = []
    run = ImportedRun(TOOL)
    try:
        for path in paths:
            logs.append(_open_log(path, transcripts))
        _read(logs, pass_value, run)
    except BaseException:
        run.close()
        raise
    finally:
        for log in logs:
            log.close()
    return run


def _read(logs: list[_Log], pass_value: str | None, run: ImportedRun) -> None:
    tasks = {log.header.get("eval", {}).get("task") for log in logs}
    scorers: set[str] = set()
    for log in logs:
        evaluation = log.header.get("eval") or {}
        run.tool_version = run.tool_version or (evaluation.get("packages") or {}).get("inspect_ai")
        run.agent = run.agent or evaluation.get("model")
        prefix = f"{evaluation.get('task')}/" if len(tasks) > 1 else ""
        scorer = _first_scorer(evaluation)
        ids = (evaluation.get("dataset") or {}).get("sample_ids") or []
        run.order.extend(f"{prefix}{sample_id}" for sample_id in ids)
        # Forked before the summaries are read: the child never holds a copy of them.
        aside = _Aside(log, run) if log.transcripts and log.may_be_summarised() else None
        samples, summarised = log.samples()
        if not summarised:
            aside = None  # its answers are none: no request was made
        texts: list[tuple[str, int, str]] = []
        run.stored_transcripts.append(texts)
        for index, (sample, messages) in enumerate(samples):
            attempt, used = attempt_of(sample, prefix, scorer, pass_value, (log.path, index))
            scorers.add(used)
            run.add(attempt)
            if aside is not None:
                aside.ask(sample, attempt)
            elif messages is not None:
                text = transcript_text(messages, attempt.input, attempt.output)
                if text is not None:
                    texts.append((attempt.case, attempt.attempt, text))
        for reduction in log.reductions():
            reducer = str(reduction.get("reducer"))
            for item in reduction.get("samples") or []:
                name = f"{prefix}{item.get('sample_id')}"
                run.reported.setdefault(name, {})[reducer] = item.get("value")
    if not run.attempts:
        raise BadLog(
            f"{logs[0].path}: an inspect log with no samples (was it written with --no-log-samples?)"
        )
    said = ", ".join(sorted(s for s in scorers if s))
    if said:
        run.notes.append(
            f"score {said}" + (f" == {pass_value!r}" if pass_value is not None else "")
        )


class _Aside:
    """A summarised archive's conversations, each from its member
    (``samples/<id>_epoch_<n>.json``), read by a second process while the summaries are
    mapped; the run draws them last (``ImportedRun.transcripts``)."""

    def __init__(self, log: _Log, run: ImportedRun) -> None:
        assert log.archive is not None
        self._reader = TranscriptsAside(log.archive)
        self._keys: list[tuple[str, int]] = []
        run.closers.append(self._reader.close)
        run.stored_transcripts.append(self._texts())

    def ask(self, summary: InspectSample, attempt: ImportedAttempt) -> None:
        member = f"samples/{summary.id}_epoch_{summary.epoch}.json"
        self._reader.ask(member, attempt.input, attempt.output)
        self._keys.append((attempt.case, attempt.attempt))

    def _texts(self) -> Iterator[tuple[str, int, str]]:
        for (case, attempt), text in zip(self._keys, self._reader.answers(), strict=True):
            if text is not None:
                yield case, attempt, text


class _Log:
    """One log, opened: its header, its samples and its reductions (the archive stays open
    until ``close``)."""

    def __init__(
        self,
        path: Path,
        header: dict[str, Any],
        archive: Archive | None,
        whole: dict[str, Any] | None,
        transcripts: bool,
    ) -> None:
        self.path = path
        self.transcripts = transcripts
        self.header = header
        self.archive = archive
        self._whole = whole

    def close(self) -> None:
        if self.archive is not None:
            self.archive.close()

    def may_be_summarised(self) -> bool:
        """Whether this is an archive with summaries (of which ``samples`` reads the first)."""
        return self.archive is not None and (
            "summaries.json" in self.archive.names()
            or any(True for _ in self.archive.members("_journal/summaries/"))
        )

    def samples(self) -> tuple[Iterator[tuple[InspectSample, Any]], bool]:
        """The samples, each with its messages when they are read here (None when
        transcripts are not kept), and whether they are an archive's summaries (a sample's
        scores, error, limit, usage and times, a few hundred bytes each, whose messages are
        in its member). A .json log's own samples; an archive's summaries when it has them;
        else each sample member (its whole transcript: ten times the bytes to parse)."""
        keep = self.transcripts
        if self._whole is not None:
            whole = _objects(self._whole.get("samples") or [], self.path, "samples")
            return ((sample_of(s), s.get("messages") if keep else None) for s in whole), False
        assert self.archive is not None
        summaries = self._summaries()
        first = next(summaries, None)
        if first is not None:
            every = itertools.chain([first], summaries)
            return ((s, None) for s in every), True
        whole = (
            sample_object(_member(self.archive, m, self.path), self.path, m.filename)
            for m in self.archive.members("samples/")
        )
        return ((sample_of(s), s.get("messages") if keep else None) for s in whole), False

    def _summaries(self) -> Iterator[InspectSample]:
        """As inspect reads them: ``summaries.json``, one at a time, else (a log still being
        written) the journal's parts, a sample epoch's latest summary winning."""
        assert self.archive is not None
        if "summaries.json" in self.archive.names():
            return _summaries(self.archive, "summaries.json", self.path)
        latest: dict[tuple[Any, Any], InspectSample] = {}
        for info in self.archive.members("_journal/summaries/"):
            for summary in _summaries(self.archive, info, self.path):
                latest[summary.id, summary.epoch] = summary
        return iter(latest.values())

    def reductions(self) -> list[dict[str, Any]]:
        if self._whole is not None:
            value = self._whole.get("reductions")
        else:
            assert self.archive is not None
            if "reductions.json" not in self.archive.names():
                return []
            value = _member(self.archive, "reductions.json", self.path)
        return [r for r in value or [] if isinstance(r, dict)]


def _open_log(path: Path, transcripts: bool) -> _Log:
    if zipfile.is_zipfile(path):
        try:
            archive = Archive(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise BadLog(f"{path}: not a readable inspect .eval archive ({exc})") from None
        if "header.json" not in archive.names() and "_journal/start.json" not in archive.names():
            archive.close()
            raise BadLog(f"{path}: a zip archive that is not an inspect log (no header.json)")
        name = "header.json" if "header.json" in archive.names() else "_journal/start.json"
        header = _member(archive, name, path)
        return _Log(path, header if isinstance(header, dict) else {}, archive, None, transcripts)
    whole = read_json_file(path, TOOL)
    if not isinstance(whole, dict) or "eval" not in whole:
        raise not_a(path, TOOL, 'not an inspect log (no "eval" header)')
    return _Log(path, whole, None, whole, transcripts)


def _member(archive: Archive, name: str | Member, path: Path) -> Any:
    label = name if isinstance(name, str) else name.filename
    try:
        return json.loads(archive.read(name))
    except (zipfile.BadZipFile, ValueError, OSError, KeyError) as exc:
        raise BadLog(f"{path}: {label}: {exc}") from None


def _summaries(archive: Archive, name: str | Member, path: Path) -> Iterator[InspectSample]:
    """A summaries member's samples (``summaries_in``); BadLog naming a damaged member."""
    label = name if isinstance(name, str) else name.filename
    try:
        data = archive.read(name)
    except (zipfile.BadZipFile, ValueError, OSError, KeyError) as exc:
        raise BadLog(f"{path}: {label}: {exc}") from None
    return summaries_in(data, path, label)


def _objects(values: Iterable[Any], path: Path, where: str) -> Iterator[dict[str, Any]]:
    for index, value in enumerate(values):
        yield sample_object(value, path, f"{where}[{index}]")


def _first_scorer(evaluation: dict[str, Any]) -> str | None:
    scorers = evaluation.get("scorers") or []
    first = scorers[0] if scorers and isinstance(scorers[0], dict) else {}
    name = first.get("name")
    return str(name) if name is not None else None
