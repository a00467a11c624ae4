"""A conversation whose messages are all said (user and assistant texts, no tool) is written
without making its transcript's objects: the text stored is the one the general mapping
writes, to the character, cut texts, dropped messages, escapes and plain attempts included."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from passk_tui.core.inputs.bounds import storable_json
from passk_tui.core.transcript import MESSAGE_LIMIT, TRANSCRIPT_LIMIT, said_json
from passk_tui.imports.conversation import (
    _mapped,
    _plain,
    _said_text,
    transcript_from,
    transcript_text,
)

_TEXT = st.text(st.sampled_from('qa\x00\n"\\é😀\ud83d'), max_size=12)
#: Long texts: cut at MESSAGE_LIMIT, and enough of them to pass TRANSCRIPT_LIMIT.
_LONG = st.sampled_from(["x" * (MESSAGE_LIMIT + 5), "\x01" * (MESSAGE_LIMIT - 3)])
_CONTENT = st.one_of(
    _TEXT,
    _LONG,
    st.none(),
    st.lists(st.one_of(_TEXT, st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT}))),
)
_MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool", None])},
    optional={
        "content": _CONTENT,
        "tool_calls": st.sampled_from([[], None, [{"id": "c1", "function": "f"}], "x"]),
        "tool_call_id": st.just("c1"),
    },
)


def _written_as_mapped(messages: Any, given: Any, answer: Any) -> str | None:
    if not isinstance(messages, list) or not messages or _plain(messages, given, answer):
        return None
    transcript = _mapped(messages, given, answer)
    return None if transcript is None else storable_json(transcript.to_json())


@settings(max_examples=400, deadline=None)
@given(st.lists(_MESSAGE, max_size=6), _TEXT, st.one_of(_TEXT, st.none()))
@example([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "q", "a")
@example([{"role": "user", "content": "q"}], "q", None)
@example([{"role": "user", "content": "half an emoji: \ud83d, a line\n"}], "q", None)
@example([{"role": "user", "content": "\x01" * (MESSAGE_LIMIT - 3)}] * 20, "q", None)
def test_said_messages_are_written_as_the_general_mapping_writes_them(
    messages: list[dict[str, Any]], given_text: str, answer: str | None
) -> None:
    written = transcript_text(messages, given_text, answer)
    assert written == _written_as_mapped(messages, given_text, answer)
    transcript = transcript_from(messages, given_text, answer)
    assert written == (None if transcript is None else storable_json(transcript.to_json()))
    assert written is None or len(written) <= TRANSCRIPT_LIMIT


def test_every_character_is_written_as_json_writes_it() -> None:
    """msgspec writes a said transcript: each character other than a lone surrogate (left to
    json) as json writes it, control characters, quotes and the astral planes included."""
    characters = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    for start in range(0, len(characters), MESSAGE_LIMIT):
        said = [("user", characters[start : start + MESSAGE_LIMIT], 1), ("assistant", "a", 2)]
        data = said_json(said)
        assert data is not None
        assert _said_text(data) == storable_json(data)
