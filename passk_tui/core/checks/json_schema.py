"""The JSON Schema subset a `json` check takes: type, required, properties, items, enum."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import strings
from passk_tui.core.text.mentions import shorten, type_name

JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
SCHEMA_KEYS = ("type", "required", "properties", "items", "enum")

#: Deepest nesting of properties/items: far beyond any real schema, within Python's recursion limit.
MAX_SCHEMA_DEPTH = 64

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Schema:
    """A compiled JSON schema subset; ``problem`` names the first place a value breaks it."""

    def __init__(self, spec: Any, where: str, nesting: Nesting | None = None) -> None:
        nesting = nesting or Nesting(where, MAX_SCHEMA_DEPTH)
        if not isinstance(spec, dict):
            raise InputError(f"{where}: a schema must be a table, got {type_name(spec)}")
        for key in spec:
            if key not in SCHEMA_KEYS:
                supported = ", ".join(SCHEMA_KEYS)
                raise InputError(f"{where}: unknown schema key {key!r} (supported: {supported})")
        self.type: str | None = spec.get("type")
        if self.type is not None and self.type not in JSON_TYPES:
            raise InputError(f"{where}.type: {self.type!r} is not one of {', '.join(JSON_TYPES)}")
        self.required = strings(spec, "required", where, allow_empty=True)
        properties = spec.get("properties", {})
        if not isinstance(properties, dict):
            raise InputError(f"{where}.properties: must be a table, got {type_name(properties)}")
        inner = nesting.inner("schema") if properties or "items" in spec else nesting
        self.properties = {
            key: Schema(sub, f"{where}.properties.{key}", inner) for key, sub in properties.items()
        }
        self.items = Schema(spec["items"], f"{where}.items", inner) if "items" in spec else None
        self.enum: list[Any] | None = spec.get("enum")
        if self.enum is not None and (not isinstance(self.enum, list) or not self.enum):
            raise InputError(f"{where}.enum: must be a non-empty list")
        # required/properties only make sense of an object, items of an array: demand one.
        if self.type is None and (self.required or self.properties):
            self.type = "object"
        elif self.type is None and self.items is not None:
            self.type = "array"

    def problem(self, value: Any, path: str) -> str | None:
        if self.type is not None and not _is_type(value, self.type):
            return f"{path}: expected {self.type}, got {_json_type(value)}"
        if self.enum is not None and not any(_json_equal(value, e) for e in self.enum):
            shown = shorten(", ".join(json.dumps(e, ensure_ascii=False) for e in self.enum))
            got = shorten(json.dumps(value, ensure_ascii=False))
            return f"{path}: expected one of {shown}, got {got}"
        if isinstance(value, dict):
            for key in self.required:
                if key not in value:
                    return f"missing key {key!r} at {path}"
            for key, schema in self.properties.items():
                if key in value and (found := schema.problem(value[key], _child(path, key))):
                    return found
        if isinstance(value, list) and self.items is not None:
            for index, item in enumerate(value):
                if found := self.items.problem(item, f"{path}[{index}]"):
                    return found
        return None


def _child(path: str, key: str) -> str:
    """The JSON path of an object member: $.age, or $["odd key"] when not an identifier."""
    if _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _json_type(value: Any) -> str:
    return "object" if isinstance(value, dict) else type_name(value)


def _is_type(value: Any, expected: str) -> bool:
    """JSON Schema types; bool is neither integer nor number, and 3.0 is a number, not integer."""
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return _json_type(value) == expected


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON means it: true is not 1, but 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_json_equal, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


@dataclass(frozen=True, slots=True)
class Nesting:
    """The place of the outermost table (for the message), the deepest level allowed, this level."""

    root: str
    limit: int
    depth: int = 1

    def inner(self, what: str) -> Nesting:
        """One level down; InputError '<root>: <what> nested more than <limit> deep' past the limit."""
        if self.depth >= self.limit:
            raise InputError(f"{self.root}: {what} nested more than {self.limit} deep")
        return replace(self, depth=self.depth + 1)
