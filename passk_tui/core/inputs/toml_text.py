"""Reading TOML for cases and agents files, with errors that name the line.

tomli rather than the stdlib's tomllib: it reads TOML 1.1, whose inline tables
may span lines, as the agents file example in the README does.
"""

from __future__ import annotations

import re
from typing import Any

import tomli

from passk_tui.core.errors import InputError

# tomli appends "(at line 7, column 3)" or "(at end of document)" to its messages.
_POSITION = re.compile(
    r"^(?P<message>.*) \(at (?:line (?P<line>\d+), column \d+|end of document)\)$"
)


def parse_toml(text: str, label: str) -> dict[str, Any]:
    """The document as a dict; InputError 'label: line N: invalid TOML: problem' otherwise."""
    try:
        return tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        raise InputError(f"{label}: {_problem(str(error), text)}") from None
    except RecursionError as error:
        # tomli keeps no position here: "nested more than the allowed 400 levels".
        raise InputError(f"{label}: invalid TOML: {error}") from None
    except ValueError:
        # Not a TOMLDecodeError (that is caught above): int() refusing over 4,300 digits.
        raise InputError(f"{label}: invalid TOML: an integer of more than 4,300 digits") from None


def _problem(message: str, text: str) -> str:
    match = _POSITION.match(message)
    if not match:
        return f"invalid TOML: {message}"
    if match["line"]:
        return f"line {match['line']}: invalid TOML: {match['message']}"
    last_line = len(text.rstrip("\n").split("\n"))
    return f"line {last_line} (end of file): invalid TOML: {match['message']}"
