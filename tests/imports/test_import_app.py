"""An imported evaluation in the app: History lists it, Results and the Case screen show it,
and Resume is refused with the words the command line uses."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from passk_tui.evaluations.imported import ImportView, import_files
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.widgets.conversation.transcript_view import TranscriptView
from tests.app.test_app import table_text
from tests.support.app import TABLES

SIZE = (120, 36)
RUN1 = Path(__file__).parent.parent / "fixtures" / "imports" / "inspect-run1.eval"
CALL = {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}


async def test_an_inspect_import_opens_from_history(app_env: Path) -> None:
    imported = import_files("inspect", [RUN1], {}, ImportView())
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        assert isinstance(app.screen, HistoryScreen)
        rows = table_text(app.screen.query_one(TABLES))
        assert len(rows) == 1 and imported.evaluation_id.startswith(rows[0][0].rstrip("…"))
        assert app.screen.unavailable("resume") == (
            f"it was imported from inspect 0.3.285: {RUN1.name}; passk-tui cannot run more of it"
        )
        await pilot.press("enter")
        assert isinstance(app.screen, ResultsScreen)
        table = table_text(app.screen.query_one(TABLES))
        assert [row[0] for row in table] == [
            "product-1", "product-2", "product-3", "product-4", "never-right", "tool-error",
        ]  # fmt: skip
        await pilot.press("end", "enter")
        assert isinstance(app.screen, CaseScreen)
        outcomes = [row[1] for row in table_text(app.screen.query_one(TABLES))]
        assert outcomes.count("✓ passed") == 3 and len(outcomes) == 5
        # Before: "check none: completion only (a completed Turn passes)", and each passed
        # attempt "completion only: no check": inspect's scorer decided them, not a Turn.
        spec = str(app.screen.query_one("#case-spec", Static).render())
        assert "none: decided by inspect (imported), not by a check of ours" in spec
        assert "completion only" not in spec
        await pilot.pause()
        verdict = str(app.screen.query_one("#attempt-verdict", Static).render())
        assert "✓ passed" in verdict and "decided by inspect (imported)" in verdict


async def test_the_case_screen_shows_an_imported_conversation_terminal_safe(
    app_env: Path, tmp_path: Path
) -> None:
    """The conversation a log held, tool calls and all, in the Case screen's viewer; the
    tool's text from outside the project never reaches the terminal as escapes."""
    messages = [
        {"role": "user", "content": "where is order 7?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {
            "role": "tool",
            "tool_call_id": "c1",
            "name": "get_order",
            "content": "lost \x1b]0;pwned\x07",
        },
        {"role": "assistant", "content": "It is lost."},
    ]
    results = tmp_path / "results.json"
    trial = {"task_id": 7, "reward": 0, "info": {}, "traj": messages, "trial": 0}
    results.write_text(json.dumps([trial]))
    import_files("tau-bench", [results], {}, ImportView())
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2", "enter", "enter")
        assert isinstance(app.screen, CaseScreen)
        await pilot.pause()
        view = app.screen.query_one(TranscriptView)
        lines = [str(view.get_option_at_index(i).prompt) for i in range(view.option_count)]
        assert [line.split("\n")[0].split("  ")[0] for line in lines] == [
            "user",
            "assistant",
            "▸ tool get_order",
            "assistant",
        ]
        assert "\x1b" not in lines[2] and "\x07" not in lines[2] and "\\x1b" in lines[2]
