"""Chat Completions messages: a case input or a conversation as the request's ``messages``,
and a reply's tool calls as the transcript's steps."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from passk_tui.core.text.mentions import shorten
from passk_tui.core.transcript import Conversation, Message, input_text


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """One tool call a model asked for: its id, the function's name and arguments (as text)."""

    id: str
    name: str
    arguments: str


def request_messages(given: Any, system: str | None) -> list[dict[str, Any]]:
    """The ``messages`` of a request: the version's system prompt, then the input as one user
    message, or a conversation's messages with the tool calls it holds."""
    messages: list[dict[str, Any]] = []
    if system is not None:
        messages.append({"role": "system", "content": system})
    if not isinstance(given, Conversation):
        messages.append({"role": "user", "content": input_text(given)})
        return messages
    if given.system is not None:
        messages.append({"role": "system", "content": given.system})
    tools = {m.id: m for m in given.transcript.messages if m.role == "tool"}
    for message in given.transcript.messages:
        messages.append(_wire(message, tools))
    return messages


def _wire(message: Message, tools: dict[str | None, Message]) -> dict[str, Any]:
    """One transcript message as Chat Completions has it."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.id, "content": message.content}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    calls = [tools[call] for call in message.calls if call in tools]
    if calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_text(call.arguments)},
            }
            for call in calls
        ]
    return wire


def _arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def tool_requests(message: dict[str, Any], step: int) -> list[ToolRequest] | str:
    """The tool calls of a reply's message, or why they cannot be read (a malformed reply).

    A call without an id gets one (``call_<step>_<n>``) so that its answer can name it.
    """
    raw = message.get("tool_calls") or []
    if not isinstance(raw, list):
        return "tool_calls is not a list"
    requests = []
    for number, call in enumerate(raw, start=1):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return f"tool call {number} has no function name"
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        ident = call.get("id")
        if not isinstance(ident, str) or not ident:
            ident = f"call_{step}_{number}"
        requests.append(ToolRequest(shorten(ident), function["name"], arguments))
    return requests


def assistant_wire(content: str, requests: list[ToolRequest]) -> dict[str, Any]:
    """The reply as it goes back into the next request's messages."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": r.id,
                "type": "function",
                "function": {"name": r.name, "arguments": r.arguments},
            }
            for r in requests
        ],
    }
