"""inspect_ai logs (``.eval`` archives and ``.json`` files): each epoch of a sample an attempt.

The sample's score decides: ``C`` (or 1, or true) passes, ``I``/``P``/``N`` and other numbers
are wrong, or the value equal to ``--pass-value`` passes. An error, or a limit the sample
hit (messages, tokens, time...), makes the attempt errored with inspect's own words. The
score read is the first scorer's in the log's header, else the sample's first.

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

from passk_tui.core.attempt import Outcome
from passk_tui.imports.conversation import transcript_text
from passk_tui.imports.model import (
    BadLog,
    ImportedAttempt,
    ImportedRun,
    json_items,
    not_a,
    number_of,
    read_json_file,
    seconds_of,
)
from passk_tui.imports.transcripts_aside import TranscriptsAside
from passk_tui.imports.zip_members import Archive, Member

TOOL = "inspect"
#: No summary at all (a summary may be JSON null, which is a bad sample, not none).
_NONE = object()


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
            attempt, used = _attempt(sample, prefix, scorer, pass_value, (log.path, index))
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

    def ask(self, summary: dict[str, Any], attempt: ImportedAttempt) -> None:
        member = f"samples/{summary.get('id')}_epoch_{summary.get('epoch')}.json"
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

    def samples(self) -> tuple[Iterator[tuple[dict[str, Any], Any]], bool]:
        """The samples, each with its messages when they are read here (None when
        transcripts are not kept), and whether they are an archive's summaries (a sample's
        scores, error, limit, usage and times, a few hundred bytes each, whose messages are
        in its member). A .json log's own samples; an archive's summaries when it has them;
        else each sample member (its whole transcript: ten times the bytes to parse)."""
        keep = self.transcripts
        if self._whole is not None:
            whole = _objects(self._whole.get("samples") or [], self.path, "samples")
            return ((s, s.get("messages") if keep else None) for s in whole), False
        assert self.archive is not None
        summaries = self._summaries()
        first = next(summaries, _NONE)
        if first is not _NONE:
            every = itertools.chain([first], summaries)
            return ((_object(s, self.path, "summaries"), None) for s in every), True
        members = (_member(self.archive, m, self.path) for m in self.archive.members("samples/"))
        return ((s, s.get("messages") if keep else None) for s in members), False

    def _summaries(self) -> Iterator[Any]:
        """As inspect reads them: ``summaries.json``, one at a time, else (a log still being
        written) the journal's parts, a sample epoch's latest summary winning."""
        assert self.archive is not None
        if "summaries.json" in self.archive.names():
            return _items(self.archive, "summaries.json", self.path)
        latest: dict[tuple[Any, Any], Any] = {}
        for info in self.archive.members("_journal/summaries/"):
            part = _member(self.archive, info, self.path)
            for summary in part if isinstance(part, list) else []:
                key = (
                    (summary.get("id"), summary.get("epoch")) if isinstance(summary, dict) else None
                )
                latest[key or (len(latest), None)] = summary
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


def _items(archive: Archive, name: str, path: Path) -> Iterator[Any]:
    """A member's JSON array, an item at a time (``json_items``); BadLog naming the member."""
    try:
        yield from json_items(archive.read(name))
    except (zipfile.BadZipFile, ValueError, OSError, KeyError) as exc:
        raise BadLog(f"{path}: {name}: {exc}") from None


def _objects(values: Iterable[Any], path: Path, where: str) -> Iterator[dict[str, Any]]:
    for index, value in enumerate(values):
        yield _object(value, path, f"{where}[{index}]")


def _object(value: Any, path: Path, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadLog(f"{path}: {where}: a sample must be an object")
    return value


def _first_scorer(evaluation: dict[str, Any]) -> str | None:
    scorers = evaluation.get("scorers") or []
    first = scorers[0] if scorers and isinstance(scorers[0], dict) else {}
    name = first.get("name")
    return str(name) if name is not None else None


def _attempt(
    sample: dict[str, Any],
    prefix: str,
    scorer: str | None,
    pass_value: str | None,
    place: tuple[Path, int],
) -> tuple[ImportedAttempt, str]:
    """One sample epoch as an attempt, and the scorer read ("" when none decided it).
    ``place``: the log and the sample's index in it, named only in an error."""
    get = sample.get
    sample_id, epoch = get("id"), get("epoch")
    if sample_id is None or not isinstance(epoch, int) or isinstance(epoch, bool):
        raise BadLog(f"{_where(place)}: a sample needs an id and a whole-number epoch")
    output = _completion(sample)
    error = _error_text(get("error")) or _limit_text(get("limit"))
    scores = get("scores") or {}
    name, outcome, reason = "", Outcome.ERRORED, None
    if error is None and (not isinstance(scores, dict) or not scores):
        error = "not scored"
    elif error is None:
        name = str(scorer if scorer in scores else next(iter(scores)))
        score = scores[name] if isinstance(scores[name], dict) else {}
        passed = _passes(score.get("value"), pass_value)
        if passed is None:
            raise BadLog(
                f"{_where(place)} (id {sample_id!r}, epoch {epoch}): score {name} is "
                f"{json.dumps(score.get('value'))[:60]}, neither C/I nor a number; "
                "say which value passes with --pass-value"
            )
        if output is None and score.get("answer") is not None:
            output = score.get("answer")
        outcome = Outcome.PASSED if passed else Outcome.WRONG
        reason = None if passed else _reason(score)
    given = get("input")
    attempt = ImportedAttempt(
        case=f"{prefix}{sample_id}",
        attempt=epoch,
        outcome=outcome,
        output=output,
        reason=reason,
        error=error,
        started=seconds_of(get("started_at")),
        duration=number_of(get("total_time")),
        usage=_usage(get("model_usage")),
        input=given,
    )
    return attempt, name


def _where(place: tuple[Path, int]) -> str:
    path, index = place
    return f"{path}: sample {index + 1}"


def _passes(value: Any, pass_value: str | None) -> bool | None:
    """Whether the score's value passes; None when it is neither C/I nor a number and no
    ``--pass-value`` says which passes."""
    if pass_value is not None:
        if isinstance(value, str):
            return value == pass_value
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                return float(pass_value) == value
            except ValueError:
                return False
        return str(value).lower() == pass_value.lower()
    if value is True or value == "C":
        return True
    if value is False or value in ("I", "P", "N"):
        return False
    if isinstance(value, int | float):
        return value == 1
    return None


def _reason(score: dict[str, Any]) -> str | None:
    value = score.get("value")
    explanation = score.get("explanation")
    said = f"score {json.dumps(value)}"
    return f"{said}: {explanation}" if explanation else said


def _completion(sample: dict[str, Any]) -> Any:
    output = sample.get("output")
    if isinstance(output, dict) and output.get("completion") is not None:
        return output["completion"]
    return None


def _error_text(error: Any) -> str | None:
    if error is None or error == "":
        return None
    if isinstance(error, dict):
        return str(error.get("message") or "error")
    return str(error)


def _limit_text(limit: Any) -> str | None:
    if not isinstance(limit, dict):
        return None
    return f"{limit.get('type', 'a')} limit {limit.get('limit')} reached".replace(" None", "")


def _usage(model_usage: Any) -> dict[str, int] | None:
    """The tokens of every model the sample called, summed."""
    if not isinstance(model_usage, dict) or not model_usage:
        return None
    total = {"input_tokens": 0, "output_tokens": 0}
    for usage in model_usage.values():
        if isinstance(usage, dict):
            for key in total:
                value = usage.get(key)
                total[key] += value if isinstance(value, int) else 0
    return total
