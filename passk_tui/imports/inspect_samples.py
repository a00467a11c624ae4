"""What an attempt needs of an inspect_ai sample, and the attempt it makes.

A log's summaries (scores, error, limit, usage and times of every sample epoch) are decoded
straight into ``InspectSample``: only the fields an attempt reads, every other field of a
summary skipped unbuilt (msgspec), which is a third of the CPU of building each summary as a
dict. What that decoder refuses (a summary that is not an object, a number past a double, a
NaN, a lone surrogate's escape) is read again by ``json``, as before, so any document ``json``
reads is read, and a bad one is named as ``json`` names it. A whole sample (a ``.json`` log's,
an archive's member) is already a dict: ``sample_of`` takes the same fields from it.

The sample's score decides: ``C`` (or 1, or true) passes, ``I``/``P``/``N`` and other numbers
are wrong, or the value equal to ``--pass-value`` passes. An error, or a limit the sample
hit (messages, tokens, time...), makes the attempt errored with inspect's own words.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from passk_tui.core.attempt import Outcome
from passk_tui.imports.model import BadLog, ImportedAttempt, number_of, seconds_of


class InspectSample(msgspec.Struct, gc=False):
    """The fields of a sample (or of its summary) an attempt is made of; None where absent.
    Untracked by the cyclic collector: it holds JSON values only, never itself."""

    id: Any = None
    epoch: Any = None
    input: Any = None
    output: Any = None
    scores: Any = None
    error: Any = None
    limit: Any = None
    model_usage: Any = None
    started_at: Any = None
    total_time: Any = None


_FIELDS = InspectSample.__struct_fields__
_SUMMARIES = msgspec.json.Decoder(list[InspectSample])


def summaries_in(data: bytes) -> list[InspectSample] | None:
    """A summaries member's samples, in order; None when the fast decoder refuses the text
    (the caller reads it with ``json`` then, which says what is wrong if anything is)."""
    try:
        return _SUMMARIES.decode(data)
    except msgspec.DecodeError:  # a ValidationError too
        return None


def sample_of(value: dict[str, Any]) -> InspectSample:
    """A whole sample's (or a summary's) fields as an attempt reads them."""
    get = value.get
    return InspectSample(*[get(name) for name in _FIELDS])


def attempt_of(
    sample: InspectSample,
    prefix: str,
    scorer: str | None,
    pass_value: str | None,
    place: tuple[Path, int],
) -> tuple[ImportedAttempt, str]:
    """One sample epoch as an attempt, and the scorer read ("" when none decided it).
    ``place``: the log and the sample's index in it, named only in an error."""
    sample_id, epoch = sample.id, sample.epoch
    if sample_id is None or not isinstance(epoch, int) or isinstance(epoch, bool):
        raise BadLog(f"{_where(place)}: a sample needs an id and a whole-number epoch")
    output = _completion(sample.output)
    error = _error_text(sample.error) or _limit_text(sample.limit)
    scores = sample.scores or {}
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
    attempt = ImportedAttempt(
        case=f"{prefix}{sample_id}",
        attempt=epoch,
        outcome=outcome,
        output=output,
        reason=reason,
        error=error,
        started=seconds_of(sample.started_at),
        duration=number_of(sample.total_time),
        usage=_usage(sample.model_usage),
        input=sample.input,
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


def _completion(output: Any) -> Any:
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
