"""A transcript is measured against ``TRANSCRIPT_LIMIT`` only when the most its JSON can take
is past it: the bound is never under the JSON's real length (escapes, non-ASCII, lone
surrogates, tool calls, durations), so the result is the measured one to the message."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from passk_tui.core import transcript as module
from passk_tui.core.transcript import MESSAGE_LIMIT, Message, Transcript

#: The characters JSON writes longest (a control character is six: ``\u001f``), a quote and
#: a backslash (two), non-ASCII and a lone surrogate (one each), ASCII.
_TEXT = st.text(
    st.one_of(st.sampled_from('\x00\x1f\n"\\é€😀\ud83dab'), st.characters(exclude_categories=())),
    max_size=40,
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _messages(draw: st.DrawFn) -> Message:
    role = draw(st.sampled_from(["user", "assistant", "tool"]))
    return Message(
        role,
        draw(_TEXT),
        draw(st.integers(-(10**12) + 1, 10**12 - 1)),
        duration=draw(st.none() | st.floats()),
        calls=tuple(draw(st.lists(_TEXT, max_size=3))),
        id=draw(st.none() | _TEXT),
        name=draw(st.none() | _TEXT),
        arguments=draw(_JSON),
        error=draw(st.booleans()),
        simulated=draw(st.booleans()),
    )


def _size(transcript: Transcript) -> int:
    return len(json.dumps(transcript.to_json(), ensure_ascii=False))


def _dumps_counted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each value ``bounded`` writes out to measure it, listed."""
    dumped: list[Any] = []

    def dumps(value: Any, **options: Any) -> str:
        dumped.append(value)
        return json.dumps(value, **options)

    monkeypatch.setattr(module, "json", SimpleNamespace(dumps=dumps))
    return dumped


#: A message whose every value is written as long as its bound says it can be.
_LONGEST = Message(
    "tool",
    "\x00" * 9,
    -(10**12) + 1,
    duration=-1.2345678901234567e300,
    calls=("\x01", "\x02"),
    id="\x03",
    name="\x04",
    arguments="\x05",
    error=False,
    simulated=True,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_messages(), min_size=1, max_size=4), st.integers(0, 10**12 - 1))
@example([_LONGEST] * 3, 10**12 - 1)
def test_a_transcript_at_the_limit_is_kept_and_one_past_it_is_cut(
    messages: list[Message], cut: int
) -> None:
    """With the limit at the transcript's own length nothing is dropped; one character less
    and its last message is: were the bound ever under the real length, it would be kept."""
    transcript = Transcript(tuple(messages), cut)
    size = _size(transcript)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "TRANSCRIPT_LIMIT", size)
        assert transcript.bounded() is transcript
        patch.setattr(module, "TRANSCRIPT_LIMIT", size - 1)
        bounded = transcript.bounded()
    assert bounded.cut > cut and bounded.messages == transcript.messages[: -(bounded.cut - cut)]


@pytest.mark.parametrize("text", ["x", "\x00", 'é"\\😀\ud83d'])
@pytest.mark.parametrize("over", [-1, 0, 1])
def test_the_bound_edge_gives_the_measured_result(text: str, over: int) -> None:
    """Transcripts within a character of ``TRANSCRIPT_LIMIT`` (the worst escapes and
    non-ASCII among them) are bounded as measuring alone bounds them."""
    pattern = (text * MESSAGE_LIMIT)[: MESSAGE_LIMIT // 8]
    messages = [Message("assistant", pattern, 1)]
    while _size(Transcript(tuple(messages))) < module.TRANSCRIPT_LIMIT:
        messages.append(Message("assistant", pattern, len(messages) + 1))
    messages.pop()
    empty = len(json.dumps(Message("user", "", 1).to_json()))
    room = module.TRANSCRIPT_LIMIT - _size(Transcript(tuple(messages))) - 2 - empty  # ", "
    filler = Message("user", "y" * (room + over), 1)
    transcript = Transcript((*messages, filler))
    assert _size(transcript) == module.TRANSCRIPT_LIMIT + over
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_most_besides_messages", lambda _: None)  # measured, always
        measured = transcript.bounded()
    assert transcript.bounded() == measured
    assert (measured.cut, measured is transcript) == ((1, False) if over > 0 else (0, True))


def test_a_transcript_far_within_the_limit_is_not_written_out_to_measure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dumped = _dumps_counted(monkeypatch)
    calls = Message("assistant", "", 1, calls=("c1",), duration=0.5)
    tool = Message("tool", "391", 1, id="c1", name="multiply", arguments="17*23", error=True)
    transcript = Transcript((Message("user", "What is 17 * 23?\n", 1), calls, tool))
    assert transcript.bounded() is transcript
    assert dumped == []


def test_usage_is_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value the bound does not tell (a step's usage) is written out: still one dump."""
    dumped = _dumps_counted(monkeypatch)
    transcript = Transcript((Message("assistant", "hi", 1, usage={"input_tokens": 3}),))
    assert transcript.bounded() is transcript
    assert len(dumped) == 1
