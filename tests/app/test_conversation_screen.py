"""The Case screen as a conversation: a tool-using attempt run by the real app against the fake
OpenAI face, its entries labelled, a tool call folded until Enter, outside text made safe,
readable at 80x24."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from passk_tui.core.inputs.settings import Settings
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.widgets.conversation.transcript_view import TranscriptView
from tests.support.app import run_to_end
from tests.support.conversing import tool_model, write_tool_agent
from tests.support.fake_openai import FakeOpenAI

#: A tool whose answer carries a terminal escape (a title change) and a bell.
HOSTILE_TOOL = 'import sys\nprint("refunded \\x1b]0;pwned\\x07 order 1234")\n'


def _settings(folder: Path) -> Settings:
    (folder / "cases.toml").write_text(
        '[[cases]]\nname = "refund"\ninput = "Please refund order 1234."\n'
        'check = { tool_called = { name = "refund", arguments = { order_id = "1234" } } }\n'
    )
    return Settings(
        agent="llm",
        version=1,
        cases_path=str(folder / "cases.toml"),
        attempts=2,
        k=1,
        concurrency=1,
        agents_path=str(folder / "agents.toml"),
    )


def _lines(view: TranscriptView) -> list[str]:
    return [str(view.get_option_at_index(i).prompt) for i in range(view.option_count)]


async def test_the_conversation_reads_at_80x24_and_a_tool_call_opens_with_enter(
    app_env: Path, endpoint: FakeOpenAI
) -> None:
    endpoint.respond = tool_model
    write_tool_agent(app_env, endpoint.base_url)
    (app_env / "refund.py").write_text(HOSTILE_TOOL)
    settings = _settings(app_env)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.controller.start_evaluation(settings, None)
        await run_to_end(pilot)
        app.push_screen(CaseScreen(app.controller.view, 0))
        await pilot.pause()
        figures = str(app.screen.query_one("#case-figures", Static).render())
        assert "per attempt: turns p50 1.0 p95 1.0 · tool calls p50 1.0 p95 1.0" in figures
        view = app.screen.query_one(TranscriptView)
        assert view.display and view.region.height >= 5  # on screen at 80x24
        lines = _lines(view)
        assert [line.split("\n")[0].split("  ")[0] for line in lines] == [
            "user",
            "assistant",
            "▸ tool refund",
            "assistant",
        ]
        folded = lines[2]
        assert folded.count("\n") == 1  # one line under its label
        assert "\x1b" not in folded and "\x07" not in folded and "\\x1b" in folded
        await pilot.press("a")  # into the conversation
        assert app.focused is view
        await pilot.press("down", "down", "enter")
        opened = _lines(view)[2]
        assert opened.startswith("▾ tool refund")
        assert 'arguments: {\n  "order_id": "1234"\n}' in opened and "\x1b" not in opened
        await pilot.press("enter")
        assert _lines(view)[2] == folded
