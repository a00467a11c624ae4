"""A case's check shown as its user wrote it: an inline TOML table for .toml files, JSON for .jsonl."""

from __future__ import annotations

import json
from typing import Any


def inline_toml(value: Any) -> str:
    """``{ equals = "391", ignore_case = true }``: the value as a TOML inline value."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {inline_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(inline_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)


def _key(key: str) -> str:
    bare = key and all(c.isalnum() or c in "-_" for c in key) and key.isascii()
    return key if bare else json.dumps(key, ensure_ascii=False)


def check_as_written(spec: Any, cases_path: str) -> str:
    """The check in the cases file's own syntax (``check = …`` for TOML, ``"check": …`` for JSONL)."""
    if cases_path.lower().endswith(".jsonl"):
        return '"check": ' + json.dumps(spec, ensure_ascii=False)
    return "check = " + inline_toml(spec)
