"""What an attempt needs of an inspect_ai sample, and the attempt it makes.

A log's summaries (scores, error, limit, usage and times of every sample epoch) are decoded
straight into ``InspectSample``: only the fields an attempt reads, every other field of a
summary skipped unbuilt (msgspec), which is a third of the CPU of building each summary as a
dict. They are decoded a thousand at a time from their own bytes (found by one pass over the
text), so 50,000 are never all held at once: 9 MB where the whole list took 67. What that
decoder refuses (a summary that is not an object, a number past a double, a NaN, a lone
surrogate's escape) is read again by ``json``, as before, a thousand at a time too, so any
document ``json`` reads is read, and a bad one is named as ``json`` names it. A whole sample
(a ``.json`` log's, an archive's member) is already a dict: ``sample_of`` takes the same
fields from it.

The sample's score decides: ``C`` (or 1, or true) passes, ``I``/``P``/``N`` and other numbers
are wrong, or the value equal to ``--pass-value`` passes. An error, or a limit the sample
hit (messages, tokens, time...), makes the attempt errored with inspect's own words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from passk_tui.core.attempt import Outcome
from passk_tui.imports.model import BadLog, ImportedAttempt, json_items, number_of, seconds_of


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
#: Summaries decoded at a time: their structs are let go once their attempts are made.
CHUNK = 1000
_ITEMS = msgspec.json.Decoder(list[msgspec.Raw])
_SAMPLES = msgspec.json.Decoder(list[InspectSample])


def summaries_in(data: bytes, path: Path, label: str) -> Iterator[InspectSample]:
    """A summaries member's samples, in order; BadLog naming the member (``label``) where its
    text is not JSON, or a summary that is not an object."""
    try:
        items = _ITEMS.decode(data)
    except msgspec.DecodeError:  # a ValidationError too: not an array, or not JSON msgspec reads
        yield from _read_by_json(json_items(data), path, label)
        return
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        try:
            decoded = _SAMPLES.decode(b"[" + b",".join(chunk) + b"]")
        except msgspec.DecodeError:
            again = (json.loads(bytes(item)) for item in chunk)
            decoded = list(_read_by_json(again, path, label))
        yield from decoded


def _read_by_json(values: Iterable[Any], path: Path, label: str) -> Iterator[InspectSample]:
    """JSON values as samples, as ``json`` reads them (lazily: its errors come while read)."""
    try:
        for value in values:
            yield sample_of(sample_object(value, path, "summaries"))
    except (ValueError, RecursionError) as exc:
        raise BadLog(f"{path}: {label}: {exc}") from None


def sample_object(value: Any, path: Path, where: str) -> dict[str, Any]:
    """``value`` when it is a JSON object; BadLog naming ``where`` in ``path`` when not."""
    if not isinstance(value, dict):
        raise BadLog(f"{path}: {where}: a sample must be an object")
    return value


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
    error = None
    if sample.error is not None or sample.limit is not None:  # the few that errored
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
    given = taken = 0  # two counters, not a dict updated per key: 50,000 samples
    for usage in model_usage.values():
        if isinstance(usage, dict):
            value = usage.get("input_tokens")
            given += value if isinstance(value, int) else 0
            value = usage.get("output_tokens")
            taken += value if isinstance(value, int) else 0
    return {"input_tokens": given, "output_tokens": taken}
