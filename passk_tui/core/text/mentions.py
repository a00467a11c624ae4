"""Values from outside as messages speak of them: type names, shortened quotes, numbers.

A message names what it got, so a user can find it; these keep that short and true.
"""

from __future__ import annotations

import datetime
import difflib
import math
from collections.abc import Sequence
from typing import Any

from passk_tui.core.errors import InputError

#: Longest answer or expectation quoted in full in a reason; longer ones end in "…".
SHOWN_CHARS = 200

_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "table",
}


def type_name(value: Any) -> str:
    """The name of a loaded value's type for messages: JSON's names, TOML's 'table'."""
    if isinstance(value, datetime.date | datetime.time):
        return "date/time"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def shorten(text: str) -> str:
    """Text cut to SHOWN_CHARS: a reason is a line on the case screen, not the answer itself."""
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def finite_number(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (a bool is not; nor a 400-digit integer)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def shown_number(value: Any) -> str:
    """A value that should have been a number, shown short (a huge integer has no short repr)."""
    if isinstance(value, int) and not isinstance(value, bool) and finite_number(value) is None:
        return "an integer too large"
    return shorten(repr(value))


def near_hint(word: str, known: Sequence[str]) -> str:
    """`` (did you mean 'X'?)`` naming the known word closest to a mistyped one; "" when none
    is close. The one way a message suggests a name: check kinds, case keys, flags."""
    near = difflib.get_close_matches(word, known, n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def refuse_unknown_keys(table: dict[str, Any], known: Sequence[str], where: str) -> None:
    """InputError ``<where>: unknown key 'x' (did you mean 'y'?)`` for the first key of
    ``table`` not in ``known``: a typo would otherwise be silently ignored."""
    for key in table:
        if key not in known:
            raise InputError(f"{where}: unknown key {key!r}{near_hint(str(key), known)}")
