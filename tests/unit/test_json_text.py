"""The non-recursive JSON encoder: the same text as json.dumps, at any depth."""

from __future__ import annotations

import json

import pytest

from passk_tui.reports.json_text import compact_json

VALUES = [
    None,
    True,
    0,
    -1.5,
    float("inf"),
    'quote " backslash \\ newline \n ünï \ud83d',
    [],
    {},
    [[], {}],
    {"a": [1, {"b": None}], "c": "d"},
    {1: "int key", None: "null key", 2.5: "float key", False: "bool key"},
    (1, 2),
]


@pytest.mark.parametrize("value", VALUES)
def test_matches_json_dumps(value: object) -> None:
    assert compact_json(value) == json.dumps(value, ensure_ascii=False)


def test_depth_is_no_limit() -> None:
    deep: object = "bottom"
    for _ in range(50_000):
        deep = {"x": [deep]}
    text = compact_json(deep)
    assert text.startswith('{"x": [{"x": [') and text.count('"bottom"') == 1
    with pytest.raises(RecursionError):
        json.dumps(deep)


def test_a_non_json_leaf_is_its_text() -> None:
    assert compact_json({"when": object}) == json.dumps({"when": str(object)})
