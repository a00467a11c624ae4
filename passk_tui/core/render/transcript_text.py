"""A transcript as entries to show: who spoke (a label), one folded line, and the whole text.

The app's conversation view and the HTML report show the same entries, so a tool
call reads the same in both: ``tool refund {"order_id": "1234"} → refunded order 1234``,
folded to one line until opened. Texts here are the outside's, unescaped: each face
makes them safe in its own way (``core.text.terminal_text`` for the terminal, HTML
escaping for the report).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from passk_tui.core.text.decimals import fixed
from passk_tui.core.transcript import Message, Transcript

#: Most characters of a folded line (the rest is seen when the entry is opened).
FOLDED_CHARS = 200


@dataclass(frozen=True, slots=True)
class Entry:
    """One message of a transcript as shown."""

    role: str
    """user, assistant or tool: what its colour follows."""
    label: str
    """Who, in words: ``user``, ``user (simulated)``, ``assistant``, ``tool refund``."""
    line: str
    """One line: the text's first line, or a tool call's arguments and result."""
    body: str
    """The whole text (a tool call: its arguments, then its result)."""
    detail: str
    """What it took: ``0.41 s · 11 in / 2 out``; '' when nothing was measured."""
    turn: int
    error: bool = False

    @property
    def folded(self) -> bool:
        """True when the line does not say it all (the entry can be opened)."""
        return self.line != self.body


def entries(transcript: Transcript) -> list[Entry]:
    """Every message of ``transcript`` as an entry, in order (a cut one says so at the end)."""
    shown = [_entry(m) for m in transcript.messages]
    if transcript.cut:
        said = f"{transcript.cut} later messages were cut to keep the transcript's size bounded"
        shown.append(Entry("cut", "cut", said, said, "", 0))
    return shown


def _entry(m: Message) -> Entry:
    if m.role == "tool":
        arguments = _arguments(m.arguments)
        result = m.content
        line = _one_line(f"{arguments} → {result}")
        body = f"arguments: {_pretty(m.arguments)}\nresult: {result}"
        return Entry("tool", f"tool {m.name}", line, body, _detail(m), m.turn, m.error)
    label = "user (simulated)" if m.simulated else m.role
    text = m.content
    if m.role == "assistant" and not text and m.calls:
        text = f"(calls {len(m.calls)} tool{'s' * (len(m.calls) != 1)})"
    return Entry(m.role, label, _one_line(text), text, _detail(m), m.turn)


def _detail(m: Message) -> str:
    parts = []
    if m.duration is not None:
        parts.append(f"{fixed(m.duration)} s")
    usage = m.usage or {}
    tokens_in, tokens_out = usage.get("input_tokens"), usage.get("output_tokens")
    if tokens_in is not None or tokens_out is not None:
        parts.append(
            f"{tokens_in if tokens_in is not None else '-'} in / {tokens_out if tokens_out is not None else '-'} out"
        )
    return " · ".join(parts)


def _one_line(text: str) -> str:
    """The text's first line, cut at FOLDED_CHARS; the whole text when it is one short line."""
    first = text.split("\n", 1)[0]
    if len(first) > FOLDED_CHARS:
        return first[: FOLDED_CHARS - 1] + "…"
    return first if first == text else first + " …"


def _arguments(arguments: Any) -> str:
    """Arguments on one line, as compact JSON (or as the model wrote them, when not JSON)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))


def _pretty(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, indent=2)
