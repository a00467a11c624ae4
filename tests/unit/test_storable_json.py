"""storable_json's short way for a dict of counts writes what json writes, to the character."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from passk_tui.core.inputs import bounds
from passk_tui.core.inputs.bounds import storable_json

# Every character but the surrogates: json and the short way both keep them as they are.
NAMES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


def as_json_writes(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@given(st.dictionaries(NAMES, st.integers(min_value=-(10**30), max_value=10**30), max_size=6))
def test_counts_are_written_as_json_writes_them(counts: dict[str, int]) -> None:
    assert bounds._counts_json(counts) is not None
    assert storable_json(counts) == as_json_writes(counts)


@given(
    st.dictionaries(
        NAMES,
        st.one_of(st.booleans(), st.floats(allow_nan=False), st.none(), st.lists(st.integers())),
        min_size=1,
        max_size=4,
    )
)
def test_any_other_dict_goes_the_long_way_with_the_same_text(value: dict[str, Any]) -> None:
    assert bounds._counts_json(value) is None
    assert storable_json(value) == as_json_writes(value)


def test_keys_that_are_not_text_go_the_long_way() -> None:
    assert bounds._counts_json({1: 2}) is None
    assert storable_json({1: 2, "a": 3}) == '{"1":2,"a":3}'


def test_a_lone_surrogate_in_a_name_is_written_as_its_escape() -> None:
    # Under the short way too: the text is stored as UTF-8, which cannot hold a lone surrogate.
    assert storable_json({"in\ud83dput": 5}) == '{"in\\\\ud83dput":5}'
    assert json.loads(storable_json({"in\ud83dput": 5})) == {"in\\ud83dput": 5}
