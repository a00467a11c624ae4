"""Values from outside (cases files, agents files, answers) bounded and checked before use:
lists of strings, seconds, and text and JSON that the store can keep."""

from __future__ import annotations

import json
import re
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.text.mentions import finite_number, shown_number


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
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def storable_json(value: Any) -> str:
    """``value`` as compact JSON text that UTF-8 can encode: lone surrogates become the
    visible text ``\\ud83d`` (a backslash, then the code), as ``storable_text`` writes them."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    if _LONE_SURROGATE.search(text) is None:
        return text
    # A surrogate can only stand inside a JSON string, where "\\\\" is one backslash.
    return _LONE_SURROGATE.sub(lambda m: f"\\\\u{ord(m[0]):04x}", text)


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
