"""Another tool's chat messages as our transcript: what an imported attempt's conversation was.

inspect_ai's ``messages``, tau-bench's ``traj`` and tau2-bench's simulation ``messages`` are
all OpenAI-shaped: a ``role``, a ``content`` (text, or a list of parts), an assistant's
``tool_calls`` and a ``tool`` message answering one of them by id. They differ only in
where a call keeps its name and arguments (``function`` as a name or as an object,
``arguments`` as an object or as JSON text), how a tool message names its call
(``tool_call_id`` or ``id``) and how it says it failed (``error`` as an object or a flag);
one mapping reads all three. A ``system`` message is the tool's instruction, not a turn of
the conversation: it is left out (our roles are user, assistant and tool).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec

from passk_tui.core.inputs.bounds import storable_json
from passk_tui.core.transcript import (
    MESSAGE_LIMIT,
    Message,
    Transcript,
    input_text,
    message_json,
    messages_transcript_json,
    plain_transcript,
    said_json,
)


def transcript_from(messages: Any, given: Any, answer: Any) -> Transcript | None:
    """The transcript of these messages; None when there are none, or when they say no more
    than the attempt's input (``given``) and its answer, which the store keeps already."""
    if not isinstance(messages, list) or not messages or _plain(messages, given, answer):
        return None
    said = _said(messages)
    if said is None:
        return _mapped(messages, given, answer)
    if _plainly(said, given, answer):
        return None
    return _said_transcript(said)


def transcript_text(messages: Any, given: Any, answer: Any) -> str | None:
    """``transcript_from``'s transcript as the store writes it: storable JSON, bounded once.
    Bounded again, a message already cut would be cut anew and say the cut text's length,
    not its own (and the 50,000 samples of a big log would each be measured twice more).
    Messages that are all said are written without making the transcript (``said_json``)."""
    if not isinstance(messages, list) or not messages or _plain(messages, given, answer):
        return None
    said = _said(messages)
    if said is None:
        mapped = _mapped_json(messages)
        text = _small_text(mapped)
        if text is not None:
            return text
        transcript = _transcript_of(mapped, given, answer)
    elif _plainly(said, given, answer):
        return None
    else:
        data = said_json(said)
        if data is not None:
            return _said_text(data)
        transcript = _said_transcript(said)
    return None if transcript is None else storable_json(transcript.to_json())


def _said_transcript(said: list[tuple[str, str, int]]) -> Transcript:
    """The transcript of said messages, bounded (what ``said_json`` writes when it can)."""
    return Transcript(tuple(Message(role, text, turn) for role, text, turn in said)).bounded()


def _said_text(data: dict[str, Any]) -> str:
    """``storable_json`` of a said transcript's JSON (texts, whole numbers and nulls only):
    msgspec writes such a value as json does, to the character, in an eighth of the time;
    a lone surrogate, which UTF-8 cannot encode, is left to ``storable_json``."""
    try:
        return _ENCODER.encode(data).decode()
    except UnicodeEncodeError:
        return storable_json(data)


def _said(messages: list[Any]) -> list[tuple[str, str, int]] | None:
    """Each message as (role, text, turn) when all are said, a user's or an assistant's
    text with no tool call (as ``_mapped`` maps them: a system message left out); None
    when a tool is called or answers."""
    said: list[tuple[str, str, int]] = []
    for message, role, turn in _turns(messages):
        if role == "tool" or (role in ("user", "assistant") and message.get("tool_calls")):
            return None
        if role in ("user", "assistant"):
            content = message.get("content")
            said.append((role, content if type(content) is str else text_of(content), turn))
    return said


def _turns(messages: list[Any]) -> Iterator[tuple[dict[str, Any], Any, int]]:
    """Each message that is an object, with its role and the user turn it is in (1-based:
    what comes before the first user message is in the first)."""
    turn = 0
    for message in messages:
        if isinstance(message, dict):
            role = message.get("role")
            if role == "user":
                turn += 1
            yield message, role, turn or 1


def _plainly(said: list[tuple[str, str, int]], given: Any, answer: Any) -> bool:
    """Whether these said messages are the plain transcript of ``given`` and ``answer``: it
    holds the input, then the answer if there was one, so only one of as many messages
    whose last text is its last can be (each one built costs; a big log has 50,000)."""
    answered = len(said) == 2
    return (
        1 <= len(said) <= 2
        and said[-1][1] == input_text(answer if answered else given)
        and said
        == [(m.role, m.content, m.turn) for m in plain_transcript(given, answer, answered).messages]
    )


def _mapped(messages: list[Any], given: Any, answer: Any) -> Transcript | None:
    """The transcript of any messages (tool calls among them: each call a tool message,
    filled in by the tool's answer); None when it is the plain one after all."""
    return _transcript_of(_mapped_json(messages), given, answer)


def _mapped_json(messages: list[Any]) -> list[dict[str, Any]]:
    """The messages mapped (``_mapped``), each in its JSON form (``Message.to_json``'s):
    making them as objects costs more than their JSON, and a big log has 50,000 samples."""
    names: dict[str, str] = {}
    mapped: list[dict[str, Any]] = []
    for message, role, turn in _turns(messages):
        if role in ("user", "assistant"):
            calls = _calls(message.get("tool_calls"))
            names.update((call_id, name) for call_id, name, _ in calls)
            content = text_of(message.get("content"))
            mapped.append(message_json(str(role), turn, content, [c for c, _, _ in calls]))
            mapped.extend(_pending(calls, turn))
        elif role == "tool":
            _answer(mapped, message, names, turn)
    return mapped


def _transcript_of(mapped: list[dict[str, Any]], given: Any, answer: Any) -> Transcript | None:
    """The mapped messages' transcript, bounded; None when it is the plain one after all."""
    transcript = Transcript(tuple(Message.from_json(message) for message in mapped))
    # A plain transcript holds the input, then the answer if there was one: it can only
    # equal one of as many messages (each one built costs; a big log has 50,000 samples).
    answered = len(mapped) == 2
    if 1 <= len(mapped) <= 2 and transcript == plain_transcript(given, answer, answered):
        return None
    return transcript.bounded()


def _small_text(mapped: list[dict[str, Any]]) -> str | None:
    """``storable_json`` of the mapped messages' bounded transcript, when bounding can change
    nothing: no text or arguments past ``MESSAGE_LIMIT``, the transcript within its limit.
    Written compactly, what a bound measures (``json.dumps``'s spaces after each ``:`` and
    ``,``) is at most twice as long, so a text of at most half ``MESSAGE_LIMIT`` holds no
    part past it. None when it might (then the transcript is made and bounded), or when it
    may be the plain one (two messages at most)."""
    if len(mapped) <= 2:
        return None
    text = storable_json(messages_transcript_json(mapped))
    return text if 2 * len(text) <= MESSAGE_LIMIT else None


def _plain(messages: list[Any], given: Any, answer: Any) -> bool:
    """The common case, told without building a transcript (a log of 50,000 samples): the
    input as the only user message, then at most the answer, with no tool call."""
    first = last = None
    for message in messages:
        if isinstance(message, dict) and message.get("role") != "system":
            if last is not None:
                return False  # a third
            if first is None:
                first = message
            else:
                last = message
    if first is None or first.get("role") != "user":
        return False
    if first.get("content") != input_text(given):
        return False
    return last is None or (
        last.get("role") == "assistant"
        and not last.get("tool_calls")
        and last.get("content") == input_text(answer)
    )


def text_of(content: Any) -> str:
    """A message's content as text: a string as is, a list of parts their texts joined (a part
    that is not text named by its type, ``[image]``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_part_text(part) for part in content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        for key in ("text", "reasoning", "refusal"):
            if isinstance(part.get(key), str):
                return str(part[key])
        return f"[{part.get('type', 'part')}]"
    return str(part)


def _calls(value: Any) -> list[tuple[str, str, Any]]:
    """Each tool call as (id, name, arguments): the name in ``function`` (inspect's), in
    ``function.name`` (OpenAI's, tau-bench's) or in ``name`` (tau2's)."""
    calls: list[tuple[str, str, Any]] = []
    for index, call in enumerate(value if isinstance(value, list) else []):
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        spec = function if isinstance(function, dict) else call
        name = function if isinstance(function, str) else spec.get("name")
        call_id = call.get("id")
        calls.append(
            (
                str(call_id) if call_id is not None else f"call-{index + 1}",
                str(name or ""),
                _arguments(spec.get("arguments")),
            )
        )
    return calls


def _arguments(value: Any) -> Any:
    """A call's arguments: an object as is, JSON text read (left as text when it is not JSON)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _pending(calls: list[tuple[str, str, Any]], turn: int) -> list[dict[str, Any]]:
    """A tool message per call, unanswered until the tool's own message fills it in (a call
    whose answer the log never holds still shows its name and arguments)."""
    return [
        message_json("tool", turn, "", id=call_id, name=name, arguments=arguments)
        for call_id, name, arguments in calls
    ]


def _answer(
    mapped: list[dict[str, Any]], message: dict[str, Any], names: dict[str, str], turn: int
) -> None:
    """A tool's answer, put in its call's place (by id), or after the rest when no call is
    found for it."""
    raw_id = message.get("tool_call_id", message.get("id"))
    call_id = str(raw_id) if raw_id is not None else None
    error = message.get("error")
    content = text_of(message.get("content"))
    if isinstance(error, dict) and not content:
        content = str(error.get("message") or "")
    name = message.get("function") or message.get("name") or names.get(call_id or "")
    for index in range(len(mapped) - 1, -1, -1):
        pending = mapped[index]
        if pending["role"] == "tool" and pending["id"] == call_id and not pending["content"]:
            mapped[index] = message_json(
                "tool",
                pending["turn"],
                content,
                id=call_id,
                name=pending["name"] or (str(name) if name else None),
                arguments=pending["arguments"],
                error=bool(error),
            )
            return
    named = str(name) if name else None
    mapped.append(message_json("tool", turn, content, id=call_id, name=named, error=bool(error)))


_ENCODER = msgspec.json.Encoder()
_MESSAGES_KEY = b'"messages":'
_DECODER = json.JSONDecoder()
#: The bytes after the ``messages`` key read first (a plain sample's messages take ~300).
_FIRST = 1024
#: The space ``str.lstrip`` strips (the same characters), found without copying the text.
_SPACE = re.compile(r"\s*")


#: What ``messages_in`` says of a head that ends before the sample's messages do.
MORE = object()


def messages_of(sample: bytes) -> Any:
    """The ``messages`` of one inspect sample's JSON, read without parsing the rest of it
    (its ``events`` are most of its bytes); ValueError when they are not found and it is
    not JSON."""
    return messages_in(sample, True)


def messages_in(head: bytes, whole: bool) -> Any:
    """The ``messages`` of the inspect sample whose JSON starts with ``head`` (``whole``: is
    all of it): the value after the first ``"messages":`` key, which in inspect's layout (id,
    epoch, input, target, messages...) is the sample's own, since a quote inside a string is
    escaped; MORE when ``head`` ends before it does. A value read from a head is the one read
    from the whole: its list closes where the whole one's does, before what the head lacks.
    Anything else found there: the whole sample is parsed (ValueError when it is not JSON)."""
    start = head.find(_MESSAGES_KEY)
    if start >= 0:
        start += len(_MESSAGES_KEY)
        # The first bytes after the key hold most samples' messages: only they are decoded.
        value = _value_at(head, start, start + _FIRST)
        if value is None and len(head) > start + _FIRST:
            value = _value_at(head, start, len(head))
        if isinstance(value, list):
            for message in value:
                if not isinstance(message, dict) or "role" not in message:
                    break
            else:
                return value
    if not whole:
        return MORE
    sample = json.loads(head)
    return sample.get("messages") if isinstance(sample, dict) else None


def _value_at(data: bytes, start: int, end: int) -> Any:
    """The JSON value at ``start`` in ``data`` read from ``data[start:end]``; None when there
    is none (not JSON, or cut by ``end``). A value found is the one read from all of
    ``data``: it ends where that one does, before ``end``."""
    text = data[start:end].decode("utf-8", errors="replace")
    space = _SPACE.match(text)
    try:
        return _DECODER.raw_decode(text, space.end() if space else 0)[0]
    except ValueError:
        return None
