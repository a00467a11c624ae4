"""JSON text of a value from outside, however deep it nests: an encoder with its own stack.

Answers, inputs and usage come from agents and stacks; one nested hundreds deep
would make ``json.dumps`` raise RecursionError part way through an export. This
walks the value with an explicit stack instead, so depth costs memory, not the
interpreter's recursion limit. Output matches ``json.dumps(value,
ensure_ascii=False)`` (compact separators ``", "`` and ``": "``).
"""

from __future__ import annotations

import json
from typing import Any

_SCALAR = json.JSONEncoder(ensure_ascii=False)


def compact_json(value: Any) -> str:
    """``value`` as JSON text, without recursion; a non-JSON leaf is written as its ``str``."""
    out: list[str] = []
    # Each entry is a value still to write, or a literal piece of text (_Text) between values.
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Text):
            out.append(item.text)
        elif isinstance(item, dict):
            pieces: list[Any] = [_Text("{")]
            for index, (key, inner) in enumerate(item.items()):
                prefix = ", " if index else ""
                pieces += [_Text(f"{prefix}{_SCALAR.encode(_key(key))}: "), inner]
            pieces.append(_Text("}"))
            stack.extend(reversed(pieces))
        elif isinstance(item, list | tuple):
            pieces = [_Text("[")]
            for index, inner in enumerate(item):
                if index:
                    pieces.append(_Text(", "))
                pieces.append(inner)
            pieces.append(_Text("]"))
            stack.extend(reversed(pieces))
        elif item is None or isinstance(item, str | int | float | bool):
            out.append(_SCALAR.encode(item))
        else:
            out.append(_SCALAR.encode(str(item)))
    return "".join(out)


def _key(key: Any) -> str:
    """A dict key as JSON writes it: strings as they are, other scalars as their JSON text."""
    return key if isinstance(key, str) else _SCALAR.encode(key).strip('"')


class _Text:
    """A literal piece of output on the stack (kept apart from str values, which get quoted)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
