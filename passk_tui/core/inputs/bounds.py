"""Values from outside (cases files, agents files, answers, usage) bounded and checked before
use: lists of strings, seconds, token counts, and text and JSON that the store can keep."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from json.encoder import encode_basestring as _quoted  # json's own, in C: the same escapes
from typing import Any

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.errors import InputError
from passk_tui.core.text.mentions import finite_number, shown_number
from passk_tui.core.transcript import Transcript


def strings(spec: dict[str, Any], key: str, where: str, allow_empty: bool = False) -> list[str]:
    """``spec[key]`` as a list of strings (a check's argv, one_of's options); InputError naming ``where``."""
    value = spec.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{where}: {key} must be a list of strings")
    if not value and not allow_empty:
        raise InputError(f"{where}: {key} must not be empty")
    return value


# -- values from outside, as they are kept --------------------------------------------------

#: Longest answer kept whole, in characters of its text (the JSON text for a non-string
#: answer): past it only this prefix is kept, with the answer's full length beside it.
#: A check always judges the whole answer; only what is kept and shown is cut.
OUTPUT_LIMIT = 1 << 20

# After JSON decoding a valid pair is one character, so any surrogate left is a lone one:
# what a length limit makes of an emoji cut in half. UTF-8 cannot encode it.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\ud83d``): every other
    character is kept, and the result can be encoded as UTF-8 (stored, exported, printed)."""
    if text.isascii() or _LONE_SURROGATE.search(text) is None:  # isascii: a flag, no scan
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


#: ``json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)``, its encoder
#: made once: json.dumps makes one per call when given options (an import stores 100,000 values).
_STORABLE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


def storable_json(value: Any) -> str:
    """``value`` as compact JSON text that UTF-8 can encode: lone surrogates become the
    visible text ``\\ud83d`` (a backslash, then the code), as ``storable_text`` writes them."""
    text = _counts_json(value) if type(value) is dict else None
    if text is None:
        text = _STORABLE.encode(value)
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    # A surrogate can only stand inside a JSON string, where "\\\\" is one backslash.
    return _LONE_SURROGATE.sub(lambda m: f"\\\\u{ord(m[0]):04x}", text)


def _counts_json(value: dict[Any, Any]) -> str | None:
    """A dict of names to whole numbers (a Turn's usage) as ``_STORABLE`` writes it, to the
    character, in a quarter of its time: the encoder's set-up per call is most of the cost of
    so small a value, and an import writes 50,000 of them. None for any other dict."""
    parts = []
    for key, number in value.items():
        if type(key) is not str or type(number) is not int:  # not a bool, not a subclass
            return None
        parts.append(f"{_quoted(key)}:{number}")
    return "{" + ",".join(parts) + "}"


def storable_transcript(transcript: Transcript) -> str:
    """A transcript as the store keeps it: bounded (``Transcript.bounded``), storable JSON."""
    return storable_json(transcript.bounded().to_json())


def lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in a decoded JSON value's strings (keys too), or None."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _LONE_SURROGATE.search(item)
            if found:
                return found[0]
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def bounded_output(output: Any) -> tuple[Any, int | None]:
    """The answer as kept: (output, None) when within OUTPUT_LIMIT, else (prefix, full length).

    A string keeps its first OUTPUT_LIMIT characters; a longer JSON answer keeps the
    start of its JSON text, as a string.
    """
    if isinstance(output, str):
        if len(output) <= OUTPUT_LIMIT:
            return output, None
        return output[:OUTPUT_LIMIT], len(output)
    if output is None or isinstance(output, bool | int | float):
        return output, None
    try:
        text = json.dumps(output, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        return output, None  # not JSON: the store says so when it cannot keep it
    if len(text) <= OUTPUT_LIMIT:
        return output, None
    return text[:OUTPUT_LIMIT], len(text)


def positive_seconds(value: Any, what: str) -> float:
    """``value`` as seconds when it is a positive finite number; InputError 'what must be ...'."""
    seconds = finite_number(value)
    if seconds is None or seconds <= 0:
        raise InputError(f"{what} must be a positive number of seconds, got {shown_number(value)}")
    return seconds


# -- numbers in a Turn's usage -----------------------------------------------------------

#: The largest number a Turn's usage may hold: a trillion tokens, orders of magnitude past any
#: model's context. A stack that reports more (1 followed by 400 zeros) reports no count at
#: all: summing or taking percentiles of such a value overflowed a float, and every later
#: export, resume and opening of the evaluation crashed.
MAX_TOKENS = 10**12
#: How a refused number is kept in the stored usage: text, so that no reader counts it.
REFUSED = "refused: "


def over_bound(value: Any) -> bool:
    """Whether ``value`` is a number no Turn's usage can hold (past MAX_TOKENS, or not finite)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return True
    return abs(value) > MAX_TOKENS  # compared as numbers: a huge int never becomes a float


def bounded_usage(usage: Any) -> Any:
    """The usage as it is kept: each top-level number past MAX_TOKENS refused, that is,
    replaced by text naming it (never capped: a cap would invent a cost), so that it counts
    as unknown; everything else as the Turn reported it."""
    if not isinstance(usage, dict) or not any(over_bound(v) for v in usage.values()):
        return usage
    return {k: f"{REFUSED}{_magnitude(v)}" if over_bound(v) else v for k, v in usage.items()}


def refused_usage_line(records: Iterable[AttemptRecord]) -> str | None:
    """One line naming the usage numbers refused (or, in a store written before the bound,
    kept past it), by key, with how many attempts reported one; None when there were none."""
    keys: dict[str, int] = {}
    for record in records:
        if not isinstance(record.usage, dict):
            continue
        for key, value in record.usage.items():
            if type(value) is int and -MAX_TOKENS <= value <= MAX_TOKENS:
                continue  # almost every count, told at once (an import reads 100,000 of them)
            if over_bound(value) or (isinstance(value, str) and value.startswith(REFUSED)):
                keys[key] = keys.get(key, 0) + 1
    if not keys:
        return None
    named = ", ".join(
        f"usage.{key} on {n} attempt{'' if n == 1 else 's'}" for key, n in keys.items()
    )
    return f"{named}: past any Turn's count (at most {MAX_TOKENS:,}); refused, counted as unknown"


def _magnitude(value: int | float) -> str:
    """A refused number, short: a 400-digit integer has no printable text (Python refuses
    to convert one past 4,300 digits), so its power of ten is shown."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return f"about 10^{math.floor(math.log10(abs(value)))}"
