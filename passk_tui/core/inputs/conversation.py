"""A case that is a conversation: its ``turns`` (the user's messages) or a simulated ``user``.

Read from a cases file row, validated into values the conversation driver plays
(``core/run/conversation.py``); every problem is one InputError line naming the place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.text.mentions import refuse_unknown_keys, type_name

#: The keys of a case's ``user`` table.
USER_KEYS = ("agent", "version", "instruction", "max_turns", "stop")
#: ``max_turns`` when a simulated user's table gives none.
DEFAULT_MAX_TURNS = 10
#: Most turns a conversation may have: far beyond a real one, and a bound on what it costs.
MAX_TURNS = 1000


@dataclass(frozen=True, slots=True)
class SimulatedUser:
    """An agent of the agents file playing the user: given the instruction and the
    conversation so far, it writes the next user message; it ends the conversation by
    writing ``stop`` (or after ``max_turns`` user messages)."""

    agent: str
    instruction: str
    version: int | None = None
    """None: the agent's newest version."""
    max_turns: int = DEFAULT_MAX_TURNS
    stop: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The table as stored (and shown): what was written, defaults filled in."""
        return {
            "agent": self.agent,
            "version": self.version,
            "instruction": self.instruction,
            "max_turns": self.max_turns,
            "stop": self.stop,
        }


def parse_turns(value: Any, where: str) -> tuple[str, ...]:
    """``turns = ["…", "…"]``: a non-empty list of non-empty strings."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{where}: turns must be a list of strings, got {type_name(value)}")
    if not value:
        raise InputError(f"{where}: turns is empty (give the user's messages in order)")
    if len(value) > MAX_TURNS:
        raise InputError(f"{where}: turns has {len(value)} messages, more than {MAX_TURNS}")
    for index, item in enumerate(value):
        if not item.strip():
            raise InputError(f"{where}: turns[{index}] is empty")
    return tuple(value)


def parse_user(value: Any, where: str) -> SimulatedUser:
    """``user = { agent, instruction, version?, max_turns?, stop? }``, validated."""
    where = f"{where}: user"
    if not isinstance(value, dict):
        raise InputError(f"{where}: must be a table {{ agent, instruction, ... }}")
    refuse_unknown_keys(value, USER_KEYS, where)
    texts = {}
    for key in ("agent", "instruction"):
        text = value.get(key)
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{where}: {key} must be a non-empty string")
        texts[key] = text
    stop = value.get("stop")
    if stop is not None and (not isinstance(stop, str) or not stop):
        raise InputError(f"{where}: stop must be a non-empty string")
    version = value.get("version")
    if version is not None:
        version = _whole(version, f"{where}: version", 1)
    max_turns = _whole(value.get("max_turns", DEFAULT_MAX_TURNS), f"{where}: max_turns", 1)
    if max_turns > MAX_TURNS:
        raise InputError(f"{where}: max_turns must be at most {MAX_TURNS}, got {max_turns}")
    return SimulatedUser(texts["agent"], texts["instruction"], version, max_turns, stop)


def user_from_json(value: dict[str, Any]) -> SimulatedUser:
    """The ``SimulatedUser`` that ``to_json`` stored."""
    return SimulatedUser(
        value["agent"], value["instruction"], value["version"], value["max_turns"], value["stop"]
    )


def _whole(value: Any, where: str, least: int) -> int:
    """A whole number (a TOML or JSON integer) of at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where} must be a whole number, got {type_name(value)}")
    if value < least:
        raise InputError(f"{where} must be at least {least}, got {value}")
    return value
