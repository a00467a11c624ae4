"""The transcript of one attempt: every message, tool call and step, as a plain value.

An attempt that failed must be seen to be understood: what the user said, what the
agent answered, which tools it called with which arguments and what they gave back.
The transcript is that record. It is pure data (no I/O): targets and the conversation
driver build it, the store keeps it bounded (``bounded``), checks read it
(``tool_called``, ``on = "transcript"``), and the faces show it.

Its JSON form (``to_json``) is the one every reader sees (the ``.json`` export's
``attempts[].transcript``, a ``command`` check's stdin with ``on = "transcript"``)::

    {"messages": [
       {"role": "user", "turn": 1, "content": "Refund order 1234"},
       {"role": "assistant", "turn": 1, "content": "", "usage": {...}, "duration": 0.41,
        "calls": ["call_1"]},
       {"role": "tool", "turn": 1, "id": "call_1", "name": "refund",
        "arguments": {"order_id": "1234"}, "content": "ok", "error": false, "duration": 0.02},
       {"role": "assistant", "turn": 1, "content": "Done.", ...}],
     "cut": 0, "user_usage": null, "user_cost": null}

``user_cost`` is the simulated user's money at its version's prices, as exact decimal
text (``"0.000123"``): counted apart from the agent's, like its ``user_usage``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from passk_tui.core.text.decimals import exact_decimal

#: The roles a message may have: the user's (typed in ``turns`` or written by a simulated
#: user), the agent's, and a tool's answer to one call.
ROLES = ("user", "assistant", "tool")

#: Most characters of JSON one stored transcript may take; past it the latest messages are
#: dropped and ``cut`` says how many (a runaway conversation, a tool that printed a book).
TRANSCRIPT_LIMIT = 256 * 1024
#: Most characters of one message's text (or a tool's arguments) kept in a transcript.
MESSAGE_LIMIT = 16 * 1024


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation: a user's, the agent's (one step), or a tool's answer.

    ``turn`` is the user turn it belongs to (1-based). An assistant message lists the ids
    of the tool calls it made (``calls``); each call is answered by a ``tool`` message with
    that ``id``, holding the tool's ``name``, its ``arguments``, its result (``content``),
    whether it failed (``error``) and how long it took.
    """

    role: str
    content: str
    turn: int
    usage: dict[str, Any] | None = None
    """Tokens of the step that wrote it (an assistant message, a simulated user's)."""
    duration: float | None = None
    """Seconds the step, or the tool, took."""
    calls: tuple[str, ...] = ()
    id: str | None = None
    name: str | None = None
    arguments: Any = None
    error: bool = False
    simulated: bool = False
    """A user message written by a simulated user (its tokens are counted apart)."""

    def to_json(self) -> dict[str, Any]:
        """This message as a JSON object: the fields it has, nothing empty."""
        data = message_json(
            self.role,
            self.turn,
            self.content,
            self.calls,
            id=self.id,
            name=self.name,
            arguments=self.arguments,
            error=self.error,
        )
        if self.usage is not None:
            data["usage"] = self.usage
        if self.duration is not None:
            data["duration"] = round(self.duration, 6)
        if self.simulated:
            data["simulated"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Message:
        """The message ``to_json`` wrote (a stored transcript, read back)."""
        return cls(
            role=str(data.get("role", "")),
            content=str(data.get("content", "")),
            turn=int(data.get("turn", 1)),
            usage=data.get("usage"),
            duration=data.get("duration"),
            calls=tuple(str(call) for call in data.get("calls", ())),
            id=data.get("id"),
            name=data.get("name"),
            arguments=data.get("arguments"),
            error=bool(data.get("error", False)),
            simulated=bool(data.get("simulated", False)),
        )


def usage_sum(usages: Iterable[dict[str, Any] | None]) -> dict[str, int] | None:
    """Tokens in and out summed over steps; None when no step reported any."""
    total: dict[str, int] = {}
    for usage in usages:
        for key in ("input_tokens", "output_tokens"):
            value = (usage or {}).get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
    return total or None


@dataclass(frozen=True, slots=True)
class Transcript:
    """Every message of one attempt in order, and how many were dropped to bound it."""

    messages: tuple[Message, ...] = ()
    cut: int = 0
    """Messages dropped from the end to keep it within ``TRANSCRIPT_LIMIT`` (0: all kept)."""
    user_usage: dict[str, int] | None = field(default=None)
    """The simulated user's tokens, counted apart from the agent's."""
    user_cost: Fraction | None = field(default=None)
    """The simulated user's money at its version's prices; None: no prices, or no usage."""

    @property
    def turns(self) -> int:
        """User turns played (each user message is one)."""
        return sum(1 for m in self.messages if m.role == "user")

    @property
    def tool_calls(self) -> int:
        """Tool calls the agent made."""
        return sum(1 for m in self.messages if m.role == "tool")

    @property
    def steps(self) -> int:
        """Agent steps: each assistant message is one model answer (or one program run)."""
        return sum(1 for m in self.messages if m.role == "assistant")

    def tools(self) -> Iterator[Message]:
        """The tool messages: each call with its name, arguments and result."""
        return (m for m in self.messages if m.role == "tool")

    def agent_usage(self) -> dict[str, int] | None:
        """The agent's tokens summed over its steps (the simulated user's apart)."""
        return usage_sum(m.usage for m in self.messages if not m.simulated)

    def to_json(self) -> dict[str, Any]:
        """The JSON form every reader sees (module docstring)."""
        cost = None if self.user_cost is None else exact_decimal(self.user_cost)
        return _transcript_json(
            [m.to_json() for m in self.messages], self.cut, self.user_usage, cost
        )

    @classmethod
    def from_json(cls, data: Any) -> Transcript:
        """The transcript ``to_json`` wrote; an unreadable value reads as an empty one."""
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            return cls()
        messages = tuple(Message.from_json(m) for m in data["messages"] if isinstance(m, dict))
        cut = data.get("cut", 0)
        user_usage = data.get("user_usage")
        return cls(
            messages,
            cut if isinstance(cut, int) else 0,
            user_usage if isinstance(user_usage, dict) else None,
            _money(data.get("user_cost")),
        )

    def bounded(self) -> Transcript:
        """This transcript within ``TRANSCRIPT_LIMIT``: each text cut to ``MESSAGE_LIMIT``,
        then messages dropped from the end until it fits, ``cut`` counting them. It is
        measured (dumped) only when the most its JSON can take is past the limit: nearly
        every transcript is far within it, and an import bounds 50,000 of them."""
        messages: list[Message] = []
        most: int | None = _most_besides_messages(self)
        for message in self.messages:
            kept, its_most = _bounded_message(message)
            messages.append(kept)
            most = None if most is None or its_most is None else most + its_most
        if most is not None and most <= TRANSCRIPT_LIMIT:
            size = most  # within the limit whatever its exact size: nothing to drop
        else:
            size = len(json.dumps(self.to_json_of(messages), ensure_ascii=False))
        dropped = 0
        while messages and size > TRANSCRIPT_LIMIT:
            last = messages.pop()
            size -= len(json.dumps(last.to_json(), ensure_ascii=False)) + 1
            dropped += 1
        if not dropped and messages == list(self.messages):
            return self
        return replace(self, messages=tuple(messages), cut=self.cut + dropped)

    def to_json_of(self, messages: Sequence[Message]) -> dict[str, Any]:
        """``to_json`` with other messages: what a bound measures before it drops."""
        return {**self.to_json(), "messages": [m.to_json() for m in messages]}


def _said_json(role: str, turn: int, content: str) -> dict[str, Any]:
    """What every message's JSON holds first (a said one's all of it)."""
    return {"role": role, "turn": turn, "content": content}


def message_json(
    role: str,
    turn: int,
    content: str,
    calls: Sequence[str] = (),
    *,
    id: str | None = None,
    name: str | None = None,
    arguments: Any = None,
    error: bool = False,
) -> dict[str, Any]:
    """``Message(...).to_json()`` of a message with no usage, duration or simulated user (an
    imported conversation's), written without making the object: the one layout of both."""
    data = _said_json(role, turn, content)
    if role == "tool":
        data.update(id=id, name=name, arguments=arguments, error=error)
    if calls:
        data["calls"] = list(calls)
    return data


def messages_transcript_json(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """``Transcript(...).to_json()`` of messages already in their JSON form (``message_json``),
    with nothing cut and no simulated user's tokens."""
    return _transcript_json(messages, 0, None, None)


def _transcript_json(
    messages: list[dict[str, Any]], cut: int, user_usage: Any, user_cost: str | None
) -> dict[str, Any]:
    return {"messages": messages, "cut": cut, "user_usage": user_usage, "user_cost": user_cost}


def said_json(said: Sequence[tuple[str, str, int]]) -> dict[str, Any] | None:
    """``Transcript(tuple(Message(role, content, turn) ...)).bounded().to_json()`` of these
    said messages (a user's or an assistant's text: no tool, call, usage or duration),
    written without making the objects (an import writes tens of thousands: each frozen
    object costs more than its JSON); None when the bound says some may have to be dropped,
    or a turn is past it: then the transcript is made and measured."""
    messages: list[dict[str, Any]] = []
    most = _TRANSCRIPT_ROOM + _INT_MOST
    for role, content, turn in said:
        if not -(10**12) < turn < 10**12:
            return None
        content = cut_text(content)
        most += _said_most(role, content)
        messages.append(_said_json(role, turn, content))
    return _transcript_json(messages, 0, None, None) if most <= TRANSCRIPT_LIMIT else None


#: The note a cut text ends with, right after its first ``MESSAGE_LIMIT`` characters.
_CUT_NOTE = re.compile(r"… \[cut: \d+ characters\]\Z")


def cut_text(text: str) -> str:
    """``text`` within ``MESSAGE_LIMIT``, a cut saying how long it was. A text this already
    cut is left as it is: a transcript is bounded where it is made and again where it is
    stored, and a second cut would count the first one's characters."""
    if len(text) <= MESSAGE_LIMIT:
        return text
    note = _CUT_NOTE.search(text, MESSAGE_LIMIT)
    if note is not None and note.start() == MESSAGE_LIMIT:
        return text
    return text[:MESSAGE_LIMIT] + f"… [cut: {len(text)} characters]"


def _bounded_message(message: Message) -> tuple[Message, int | None]:
    """A message whose text and arguments each fit ``MESSAGE_LIMIT`` (a cut says so), and
    the most characters its JSON can take (``_most_of``)."""
    content = cut_text(message.content)
    arguments = message.arguments
    arguments_most = 4  # null
    if arguments is not None:
        # A cut leaves the arguments as text: bounded again, that text is measured as it is.
        text = (
            arguments
            if isinstance(arguments, str)
            else json.dumps(arguments, ensure_ascii=False, default=str)
        )
        if len(text) > MESSAGE_LIMIT:
            arguments = cut_text(text)
        # Text is written as a JSON string; anything else as ``text`` itself is, exactly.
        arguments_most = _string_most(arguments) if isinstance(arguments, str) else len(text)
    if content is not message.content or arguments is not message.arguments:
        message = replace(message, content=content, arguments=arguments)
    return message, _most_of(message, arguments_most)


#: Characters of a message's JSON besides its values: every key it can have, with its quotes
#: and colon, the commas between them, its braces and the comma before it (130), with room.
_MESSAGE_ROOM = 160
#: The same of a transcript's JSON besides its messages and its cut (its keys, the messages'
#: brackets, two nulls: 64).
_TRANSCRIPT_ROOM = 80
#: Characters of an integer in (-10**12, 10**12) written as JSON; of any float's (24), of
#: ``true``, ``false`` or ``null``.
_INT_MOST = 13
_FLOAT_MOST = 24
_WORD_MOST = 5


def _string_most(text: str) -> int:
    """The most characters ``text`` takes as a JSON string (``ensure_ascii=False``): its
    quotes, and each character at most six (``\\u001f``)."""
    return 6 * len(text) + 2


def _most_of(message: Message, arguments_most: int) -> int | None:
    """The most characters ``message``'s JSON (``to_json``, as ``bounded`` measures it) can
    take, given its arguments'; None when that is not told without writing it (a usage, a
    value of another type than declared): then the transcript is measured."""
    turn, duration, role = message.turn, message.duration, message.role
    if (
        message.usage is not None
        or type(message.content) is not str
        or type(role) is not str
        or type(turn) is not int
        or not -(10**12) < turn < 10**12
        or not (duration is None or type(duration) is float)
    ):
        return None
    most = _said_most(role, message.content)
    if role == "tool":
        for value in (message.id, message.name):
            if value is None:
                most += _WORD_MOST
            elif type(value) is str:
                most += _string_most(value)
            else:
                return None
        if type(message.error) is not bool:
            return None
        most += _WORD_MOST + arguments_most
    for call in message.calls:
        if type(call) is not str:
            return None
        most += _string_most(call) + 2  # and the comma after it
    return most


def _said_most(role: str, content: str) -> int:
    """The most characters the JSON of a message with this role and text can take, besides
    its arguments, id, name, error and calls (its turn, its calls' brackets, its duration
    and whether it is simulated counted at their longest)."""
    most = _MESSAGE_ROOM + _INT_MOST + 2 + _FLOAT_MOST + _WORD_MOST
    return most + _string_most(role) + _string_most(content)


def _most_besides_messages(transcript: Transcript) -> int | None:
    """The most characters a transcript's JSON takes besides its messages; None when that is
    not told without writing it (the simulated user's usage or cost)."""
    cut = transcript.cut
    if (
        transcript.user_usage is not None
        or transcript.user_cost is not None
        or type(cut) is not int
        or not -(10**12) < cut < 10**12
    ):
        return None
    return _TRANSCRIPT_ROOM + _INT_MOST


def input_text(value: Any) -> str:
    """A case input (or an answer) as message text: a string as is, anything else as JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _money(text: Any) -> Fraction | None:
    """A stored cost's exact decimal text read back; anything else is unknown (None)."""
    if not isinstance(text, str):
        return None
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def plain_transcript(given: Any, answer: Any, answered: bool) -> Transcript:
    """The transcript of a one-message attempt with no tools: its input, and its answer if
    ``answered`` (its Turn completed, or left an output).

    Such attempts store none (their input and answer are stored already); readers build it.
    """
    messages = [Message("user", input_text(given), 1)]
    if answered:
        messages.append(Message("assistant", input_text(answer), 1))
    return Transcript(tuple(messages))


class Conversation(dict[str, Any]):
    """The input a target gets for one turn of a conversation: ``{"messages": [...]}``.

    A dict, so that a ``command`` agent reads it as JSON on stdin and a stack Run gets it
    as its input unchanged; a target that speaks messages itself (an ``openai`` version,
    a Python callable) recognises the type and uses ``transcript`` directly. ``system``
    is an instruction before the messages (a simulated user's), first in ``messages``.
    """

    def __init__(self, transcript: Transcript, system: str | None = None) -> None:
        head = [] if system is None else [{"role": "system", "content": system}]
        super().__init__(messages=head + chat_messages(transcript))
        self.transcript = transcript
        self.system = system


def chat_messages(transcript: Transcript) -> list[dict[str, str]]:
    """The conversation as a program reads it: user and assistant texts, in order."""
    return [
        {"role": m.role, "content": m.content}
        for m in transcript.messages
        if m.role in ("user", "assistant") and (m.role == "user" or m.content or not m.calls)
    ]
