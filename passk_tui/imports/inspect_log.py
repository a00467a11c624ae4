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

import json
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.imports.conversation import messages_of, transcript_from
from passk_tui.imports.model import (
    BadLog,
    ImportedAttempt,
    ImportedRun,
    not_a,
    number_of,
    read_json_file,
    seconds_of,
)
from passk_tui.imports.zip_members import Archive, Member

TOOL = "inspect"


def read_inspect(
    paths: list[Path], pass_value: str | None = None, transcripts: bool = True
) -> ImportedRun:
    """Every sample epoch of these logs; several logs of one run (one per task) together.
    Without ``transcripts`` an archive's sample members are never read (its summaries hold
    the outcomes) and no attempt keeps its conversation."""
    logs: list[_Log] = []
    try:
        for path in paths:
            logs.append(_open_log(path, transcripts))
        return _read(logs, pass_value)
    finally:
        for log in logs:
            log.close()


def _read(logs: list[_Log], pass_value: str | None) -> ImportedRun:
    run = ImportedRun(TOOL)
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
        for index, sample in enumerate(log.samples()):
            attempt, used = _attempt(sample, prefix, scorer, pass_value, (log.path, index))
            scorers.add(used)
            run.add(attempt)
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
    return run


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
        self._archive = archive
        self._whole = whole

    def close(self) -> None:
        if self._archive is not None:
            self._archive.close()

    def samples(self) -> Iterator[dict[str, Any]]:
        """The samples: a .json log's own; an archive's summaries when it has them (a sample's
        scores, error, limit, usage and times, a few hundred bytes each), each with its
        messages read from its member unless transcripts are not kept, else each sample
        member (its whole transcript: ten times the bytes to parse)."""
        for sample in self._samples():
            yield sample if self.transcripts else {**sample, "messages": None}

    def _samples(self) -> Iterator[dict[str, Any]]:
        if self._whole is not None:
            yield from _objects(self._whole.get("samples") or [], self.path, "samples")
            return
        summaries = self._summaries()
        if summaries:
            summaries.reverse()
            while summaries:  # each summary let go once read: the list never held twice
                summary = _object(summaries.pop(), self.path, "summaries")
                yield (
                    {**summary, "messages": self._messages(summary)}
                    if self.transcripts
                    else summary
                )
            return
        assert self._archive is not None
        for info in self._archive.members("samples/"):
            yield _member(self._archive, info, self.path)

    def _messages(self, summary: dict[str, Any]) -> Any:
        """A summarised sample's messages, from its member (``samples/<id>_epoch_<n>.json``);
        None when the archive has no such member."""
        assert self._archive is not None
        name = f"samples/{summary.get('id')}_epoch_{summary.get('epoch')}.json"
        if name not in self._archive.names():
            return None
        try:
            return messages_of(self._archive.read(name))
        except (zipfile.BadZipFile, ValueError, OSError) as exc:
            raise BadLog(f"{self.path}: {name}: {exc}") from None

    def _summaries(self) -> list[Any]:
        """As inspect reads them: ``summaries.json``, else (a log still being written) the
        journal's parts, a sample epoch's latest summary winning."""
        assert self._archive is not None
        if "summaries.json" in self._archive.names():
            value = _member(self._archive, "summaries.json", self.path)
            return value if isinstance(value, list) else []
        latest: dict[tuple[Any, Any], Any] = {}
        for info in self._archive.members("_journal/summaries/"):
            part = _member(self._archive, info, self.path)
            for summary in part if isinstance(part, list) else []:
                key = (
                    (summary.get("id"), summary.get("epoch")) if isinstance(summary, dict) else None
                )
                latest[key or (len(latest), None)] = summary
        return list(latest.values())

    def reductions(self) -> list[dict[str, Any]]:
        if self._whole is not None:
            value = self._whole.get("reductions")
        else:
            assert self._archive is not None
            if "reductions.json" not in self._archive.names():
                return []
            value = _member(self._archive, "reductions.json", self.path)
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
        # The attempt's conversation (the sample's messages) as its transcript.
        transcript=transcript_from(get("messages"), given, output),
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
