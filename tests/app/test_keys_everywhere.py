"""Every action can be found three ways, all read from the screen's bindings: the keys line
(what fits, whole), the command palette (in words) and `?` help (with every glyph)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from rich.console import Console
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Input

import passk_tui.tui
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.messages import ResultsOpened
from passk_tui.tui.app.palette_commands import named_bindings
from passk_tui.tui.dialogs.help import HelpScreen
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.widgets.glyphs import SYMBOLS
from passk_tui.tui.widgets.grid_lines import SAMPLED_MARK
from passk_tui.tui.widgets.key_bar import KeyBar, fitting
from tests.support.app import synthetic_view

SMALL = (80, 24)
#: Cursor moves: the only bindings of ours without words (help sums them up in a line).
MOVES = {
    "cursor_up",
    "cursor_down",
    "page_up",
    "page_down",
    "first_row",
    "last_row",
    "scroll_left",
    "scroll_right",
}


def our_bindings() -> list[tuple[str, Binding]]:
    """Every Binding in a BINDINGS of a screen, widget or the app in passk_tui.tui."""
    found = []
    for module in pkgutil.walk_packages(passk_tui.tui.__path__, "passk_tui.tui."):
        if module.name.endswith(".terminal"):
            continue  # POSIX-only, no bindings
        loaded = importlib.import_module(module.name)
        for _, cls in inspect.getmembers(loaded, inspect.isclass):
            if cls.__module__ == module.name and issubclass(cls, DOMNode):
                for binding in cls.__dict__.get("BINDINGS", ()):
                    found.append((cls.__name__, binding))
    return found


def test_every_action_of_ours_is_named_in_words() -> None:
    bindings = our_bindings()
    assert len(bindings) > 40
    missing = [
        f"{owner}: {b.key} {b.action}"
        for owner, b in bindings
        if b.action not in MOVES and not (b.description and b.tooltip)
    ]
    assert missing == []


def help_text(app: PasskApp) -> str:
    assert isinstance(app.screen, HelpScreen)
    console = Console(width=100, record=True)
    console.print(app.screen.body())
    return console.export_text()


async def test_results_and_case_views_are_in_the_palette_and_in_help(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.post_message(ResultsOpened(synthetic_view(5)))
        await pilot.pause(0.3)
        for wanted in (
            {"Errors by kind", "Durations, tokens", "Rerun failing", "Export…", "Sort wrong"},
            {"Group answers", "Diff two attempts", "pass@k curve", "Copy…", "Attempts"},
        ):
            commands = list(app.get_system_commands(app.screen))
            titles = {c.title for c in commands}
            assert wanted <= titles
            assert not {"Up", "Cursor up", "Page down", "First"} & titles
            assert all("question_mark" not in c.help and "key:" not in c.help for c in commands)
            names = [active.binding.description for _, active in named_bindings(app.screen)]
            await pilot.press("question_mark")
            text = help_text(app)
            # Every action of the screen under help, by name: the same table the palette read.
            assert all(name in text for name in names), [n for n in names if n not in text]
            assert f"{SAMPLED_MARK} " in text and "sampling" in text
            assert all(symbol in text for symbol in SYMBOLS.values())
            await pilot.press("escape")
            await pilot.press("down", "enter")  # on to a case for the second round
            await pilot.pause(0.3)


def test_the_keys_line_drops_whole_keys_and_keeps_help_longest() -> None:
    entries = [
        ("enter", "⏎", "Open results", True),
        ("u", "u", "Resume", True),
        ("f5", "f5", "Reload", True),
        ("question_mark", "?", "Help", True),
    ]
    assert fitting(entries, "question_mark", 100) == entries
    assert fitting(entries, "question_mark", 30) == [entries[0], entries[1], entries[3]]
    assert fitting(entries, "question_mark", 8) == [entries[3]]
    assert fitting(entries, None, 23) == entries[:2]


async def test_history_keys_line_at_80_is_whole(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("f2")
        await pilot.pause(0.2)
        line = "".join(s.text for s in app.screen.query_one(KeyBar).render_line(0))
        keys, palette = line.split("▏")
        assert palette.strip() == "^p Commands"
        # Reload did not fit: left out whole, help kept, nothing cut mid-word.
        assert keys.rstrip().endswith("c Compare ? Help") and "Reload" not in keys


async def test_q_quits_where_nothing_is_typed_and_types_where_it_is(app_env: Path) -> None:
    def keys_line() -> str:
        return "".join(s.text for s in app.screen.query_one(KeyBar).render_line(0))

    app = PasskApp(form=blank_form(), show_timing=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause(0.2)
        field = app.screen.query_one("#input-agent", Input)
        field.focus()
        await pilot.press("q")
        assert field.value == "q" and app.is_running
        assert " ^q Quit " in keys_line()  # q would be typed here
        await pilot.press("f2")
        await pilot.pause(0.2)
        assert " q Quit " in keys_line() and "^q" not in keys_line()
        await pilot.press("q")
        await pilot.pause(0.2)
    assert app.return_code == 0 and not app.is_running
