"""Conversations from Python: ``evaluate()`` with a callable that gets the message list, and a
local `openai` agent with tools (the fake OpenAI face over real HTTP), transcripts exported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import passk_tui
from passk_tui import Case
from tests.support.conversing import tool_model, write_tool_agent
from tests.support.fake_openai import FakeOpenAI


def booking(messages: list[dict[str, Any]]) -> str:
    """A callable holding a conversation: it gets every message so far, answers the last."""
    said = [m["content"] for m in messages if m["role"] == "user"]
    return "Your table is confirmed." if len(said) == 3 else f"Noted: {said[-1]}"


def test_a_callable_gets_the_conversation_as_a_list(tmp_path: Path) -> None:
    turns = ["A table for two, please.", "Tomorrow at 7pm.", "Yes, confirm it."]
    cases = [Case("booking", turns=turns, check={"contains": "confirmed"})]
    out = tmp_path / "out.json"
    result = passk_tui.evaluate(booking, cases=cases, attempts=2, k=1, export=out)
    assert (result.cases[0].passed, result.cases[0].attempts) == (2, 2)
    exported = json.loads(out.read_text())
    messages = exported["attempts"][0]["transcript"]["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == turns
    assert exported["cases"][0]["turns"] == turns
    assert exported["cases"][0]["conversation"]["turns"] == {"p50": 3.0, "p95": 3.0}


def test_turns_and_input_together_are_refused_in_one_line() -> None:
    with pytest.raises(passk_tui.InputError, match="input and turns both given"):
        passk_tui.evaluate(booking, cases=[Case("x", "hi", {"equals": "x"}, turns=["a"])])


async def test_a_local_openai_agent_with_tools_from_evaluate(
    endpoint: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint.respond = tool_model
    write_tool_agent(tmp_path, endpoint.base_url)
    monkeypatch.chdir(tmp_path)
    check = {"tool_called": {"name": "refund", "arguments": {"order_id": "1234"}}}
    cases = [Case("refund", "Please refund order 1234.", check)]
    result = await passk_tui.evaluate_async(
        "llm", cases=cases, version=1, agents=tmp_path / "agents.toml", attempts=2, k=1,
        export=tmp_path / "out.json",
    )  # fmt: skip
    assert result.cases[0].passed == 2
    attempt = json.loads((tmp_path / "out.json").read_text())["attempts"][0]
    assert [m["role"] for m in attempt["transcript"]["messages"]] == [
        "user", "assistant", "tool", "assistant",
    ]  # fmt: skip
