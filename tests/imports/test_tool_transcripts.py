"""A conversation with tool calls is written from its messages' JSON, without making its
transcript's objects, when bounding could change nothing: the text stored is the one the
transcript's objects write once bounded, to the character (calls answered, unanswered and
unknown, errors, arguments of every kind and length, escapes, cut texts)."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from passk_tui.core.inputs.bounds import storable_json
from passk_tui.core.transcript import MESSAGE_LIMIT, TRANSCRIPT_LIMIT
from passk_tui.imports.conversation import (
    _mapped_json,
    _small_text,
    transcript_from,
    transcript_text,
)

_TEXT = st.text(st.sampled_from('qa\x00\n"\\é😀\ud83d'), max_size=12)
#: Texts about the bounds: a quarter and half of MESSAGE_LIMIT (the short way's edge), and
#: past it (cut).
_SIZED = st.sampled_from(
    [n * "x" for n in (MESSAGE_LIMIT // 4, MESSAGE_LIMIT // 2, MESSAGE_LIMIT + 5)]
)
_JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_TEXT, inner, max_size=3)),
    max_leaves=6,
)
_ARGUMENTS = st.one_of(_JSONISH, st.just('{"a": 1.5e300}'), st.just("not json"), _SIZED)
_CALL = st.one_of(
    # inspect's: the function's name, its arguments as an object.
    st.fixed_dictionaries(
        {"id": st.sampled_from(["c1", "c2"]), "function": _TEXT, "arguments": _ARGUMENTS}
    ),
    # OpenAI's and tau-bench's: a function object, its arguments as JSON text (or not).
    st.fixed_dictionaries(
        {"function": st.fixed_dictionaries({"name": _TEXT, "arguments": _ARGUMENTS})},
        optional={"id": st.sampled_from(["c1", "c2", 7])},
    ),
    # tau2's: the name on the call itself.
    st.fixed_dictionaries({"id": st.just("c2"), "name": _TEXT, "arguments": _ARGUMENTS}),
    st.just("not a call"),
)
_CONTENT = st.one_of(
    _TEXT,
    _SIZED,
    st.none(),
    st.lists(st.one_of(_TEXT, st.fixed_dictionaries({"type": st.just("image")}))),
)
_MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system"])},
        optional={"content": _CONTENT, "tool_calls": st.lists(_CALL, max_size=3)},
    ),
    st.fixed_dictionaries(
        {"role": st.just("tool")},
        optional={
            "content": _CONTENT,
            "tool_call_id": st.sampled_from(["c1", "c2", "call-1", "c9"]),
            "function": _TEXT,
            "error": st.one_of(st.booleans(), st.fixed_dictionaries({"message": _TEXT})),
        },
    ),
    st.just("not a message"),
)

_ASKED = {"role": "user", "content": "Refund order 1234"}
_CALLED = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "refund", "arguments": {"order": 1234, "amount": 9.5}}]}  # fmt: skip
_ANSWERED = {"role": "tool", "tool_call_id": "c1", "content": "ok"}
_DONE = {"role": "assistant", "content": "Done."}


def _bounded_objects_write(messages: Any, given: Any, answer: Any) -> str | None:
    """What the transcript's objects write, made and bounded (``transcript_from``)."""
    transcript = transcript_from(messages, given, answer)
    return None if transcript is None else storable_json(transcript.to_json())


@settings(max_examples=500, deadline=None)
@given(st.lists(_MESSAGE, max_size=7), _TEXT, st.one_of(_TEXT, st.none()))
@example([_ASKED, _CALLED, _ANSWERED, _DONE], "Refund order 1234", "Done.")
@example([_ASKED, _CALLED, _DONE], "q", None)  # a call never answered
@example([_ASKED, _CALLED, {**_ANSWERED, "tool_call_id": "c9"}, _DONE], "q", None)  # unknown
@example([_ASKED, _CALLED, {**_ANSWERED, "error": {"message": "boom"}, "content": ""}], "q", None)
@example([_ASKED, _CALLED, {**_ANSWERED, "content": "x" * (MESSAGE_LIMIT // 2)}], "q", None)
@example([_ASKED, _CALLED, {**_ANSWERED, "content": "x" * (MESSAGE_LIMIT // 4 - 60)}], "q", None)
@example([_ASKED, _CALLED, {**_ANSWERED, "content": "x" * (MESSAGE_LIMIT + 1)}] * 20, "q", None)
def test_tool_conversations_are_written_as_their_bounded_transcript_writes_them(
    messages: list[Any], given_text: str, answer: str | None
) -> None:
    written = transcript_text(messages, given_text, answer)
    assert written == _bounded_objects_write(messages, given_text, answer)
    assert written is None or len(written) <= TRANSCRIPT_LIMIT


def test_the_short_way_is_taken_for_a_small_conversation_and_left_for_a_large_one() -> None:
    small = _mapped_json([_ASKED, _CALLED, _ANSWERED, _DONE])
    assert _small_text(small) == _bounded_objects_write([_ASKED, _CALLED, _ANSWERED, _DONE], "", "")
    # Past half the message limit written compactly, a part might be past it: made and bounded.
    large = _mapped_json([_ASKED, _CALLED, {**_ANSWERED, "content": "x" * MESSAGE_LIMIT}, _DONE])
    assert _small_text(large) is None
    # Two messages at most may be the plain transcript: told by the objects.
    assert _small_text(_mapped_json([_ASKED, _DONE])) is None
