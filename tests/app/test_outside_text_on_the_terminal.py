"""Outside text never reaches the terminal as escapes: what the app writes, read at the driver.

An agent answers and fails with OSC 52 (clipboard), OSC 0/2 (title), CSI (clear,
colour), C1, BEL, backspace, carriage return, bidi controls and Rich markup; the
cases file's name and the case names hold more. Every screen that shows them is
opened, and two things are read: every write Textual makes to the terminal driver
(the headless driver, made to render), and every segment of text it draws.
Neither may hold a control character or a link; the escapes' visible forms must
be on screen.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import textual.drivers.headless_driver as headless_driver
from rich.console import Console
from rich.segment import Segment
from textual.pilot import Pilot
from textual.strip import Strip

from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.answer_diff import DiffScreen
from passk_tui.tui.screens.answers import AnswersScreen
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.compare.compare_case import CompareCaseScreen
from passk_tui.tui.screens.compare.screen import CompareScreen
from passk_tui.tui.screens.errors import ErrorsScreen
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from tests.support.app import run_to_end, scripted

#: Wide enough that the longest hostile answer is drawn on one line beside the attempts list.
SIZE = (220, 50)
#: Clipboard, title, clear screen, colour, C1 CSI, BEL, backspace, CR, RLO, markup, a link.
FIRST = (
    "A\x1b]52;c;aGk=\x07B\x1b]2;pwned\x07C\x1b[2JD\x1b[31mE\x9bF\x07G\x08H\rI\u202eJ"
    " [red]x[/red] [link=http://e]L[/link]"
)
#: OSC 52 ended by ST: Rich drops a BEL, so this is the form that reached the clipboard.
SECOND = "two: \x1b]52;c;c3Q=\x1b\\ \x1b]0;pwned-too\x07 \u2066iso\u2069 \u200e\x7f [bold]b[/bold]"
THIRD = "three: \x1b[H\x1b[2J [bold red]loud[/bold red] \u202d\x85"
ERROR = "err \x1b]52;c;ZXJy\x07 \x1b]2;err-title\x07 \x9b1m \u202e [red]e[/red]"
#: Names may hold markup (a name with a control character is refused when the file loads).
JUDGED = "[red]x[/red]"
EQUALS = "[link=http://e]y[/link]"
#: The file's name is outside text too: the title shows it.
FILE_NAME = "cases \x1b]2;pwned-title\x07 [bold]x.jsonl"
#: A check that fails every answer and gives the answer's last line as its reason.
ECHO = "import sys; sys.stderr.write(sys.stdin.read()); sys.exit(1)"

#: What Textual itself writes: cursor moves, colours, synchronised output, the pointer's shape.
OWN_SEQUENCES = re.compile(r"\x1b\[\d+;\d+H|\x1b\[[\d;]*m|\x1b\[\?2026[hl]|\x1b\]22;[\w-]*\x07|\n")
#: Never to be drawn: C0, DEL, C1, bidi embeddings, overrides, isolates and marks.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def write_cases(folder: Path) -> Path:
    """Two cases: one judged by a command echoing the answer, one that passes on "391"."""
    judged = {
        "name": JUDGED,
        "input": {"answers": [FIRST, f"!{ERROR}", SECOND, THIRD]},
        "check": {"command": ["python3", "-c", ECHO, "\x9b\u202e[b]spec[/b]"]},
    }
    equals = {"name": EQUALS, "input": {"answers": ["391", FIRST]}, "check": {"equals": "391"}}
    path = folder / FILE_NAME
    path.write_text("".join(json.dumps(case) + "\n" for case in (judged, equals)))
    return path


class Terminal:
    """What reached the terminal: the driver's writes and the text segments drawn."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.writes: list[str] = []
        self.segments: list[Segment] = []
        self._mark = 0
        terminal = self

        class Rendering(headless_driver.HeadlessDriver):
            """The test driver, but the app renders to it as to a real terminal."""

            @property
            def is_headless(self) -> bool:
                return False

            def write(self, data: str) -> None:
                terminal.writes.append(data)

        render = Strip.render

        def recorded(strip: Strip, console: Console) -> str:
            terminal.segments.extend(strip)
            return render(strip, console)

        monkeypatch.setattr(headless_driver, "HeadlessDriver", Rendering)
        monkeypatch.setattr(Strip, "render", recorded)

    async def shows(self, pilot: Pilot, *visible: str) -> None:
        """Since the last call, the screen was drawn with each of ``visible`` in it."""
        await pilot.pause(0.3)
        drawn = OWN_SEQUENCES.sub("", "".join(self.writes[self._mark :]))
        self._mark = len(self.writes)
        for text in visible:
            assert text in drawn, f"{text!r} not drawn on {pilot.app.screen}"

    def assert_nothing_raw(self) -> None:
        """No segment drawn holds an unsafe character or a link; no hostile sequence written."""
        stream = "".join(self.writes)
        assert stream, "nothing was written: the driver was not rendering"
        for segment in self.segments:
            assert UNSAFE.search(segment.text) is None, repr(segment.text)
            assert segment.style is None or not segment.style.link, segment
        for raw in ("\x1b]52;", "\x1b]0;", "\x1b]2;", "\x1b]8;", "\x1b[2J", "\x1b[H", "\x9b"):
            assert raw not in stream, raw
        # After Textual's own sequences, not one control or bidi character is left.
        left = OWN_SEQUENCES.sub("", stream)
        assert UNSAFE.search(left) is None, repr(UNSAFE.search(left))


async def test_hostile_answers_errors_and_names_are_shown_as_text_on_every_screen(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = Terminal(monkeypatch)
    settings = replace(scripted(str(write_cases(app_env)), attempts=3, k=2), require=None)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(settings, None)
        await run_to_end(pilot)
        assert isinstance(app.screen, ResultsScreen)
        await terminal.shows(pilot, JUDGED, EQUALS, terminal_safe(FILE_NAME))

        await pilot.press("enter")  # the judged case: its first attempt's answer and reason
        assert isinstance(app.screen, CaseScreen)
        await terminal.shows(
            pilot,
            terminal_safe(FIRST),
            "command exited 1: I\\u202eJ [red]x[/red] [link=http://e]L[/link]",
            "E\\x9bF\\u0007G",  # the input, FIRST in JSON: json.dumps escapes C0, not C1
        )
        await pilot.press("down")  # the second attempt errored
        await terminal.shows(pilot, terminal_safe(ERROR))

        await pilot.press("A")
        assert isinstance(app.screen, AnswersScreen)
        await terminal.shows(pilot, terminal_safe(FIRST))
        await pilot.press("escape", "D")  # no pass: the first two different answers
        assert isinstance(app.screen, DiffScreen)
        await terminal.shows(pilot, terminal_safe(FIRST), terminal_safe(SECOND))
        await pilot.press("escape", "escape", "E")
        assert isinstance(app.screen, ErrorsScreen)
        await terminal.shows(pilot, terminal_safe(ERROR))

        app.controller.start_evaluation(settings, None)  # again: its answers go on round the list
        await run_to_end(pilot)
        await pilot.press("f2")
        assert isinstance(app.screen, HistoryScreen)
        await terminal.shows(pilot, "scripted")
        await pilot.press("space", "down", "space", "c")
        assert isinstance(app.screen, CompareScreen)
        await terminal.shows(pilot, JUDGED, EQUALS)
        await pilot.press("enter")  # A's first answer against B's (THIRD, the round's fourth)
        assert isinstance(app.screen, CompareCaseScreen)
        await terminal.shows(pilot, JUDGED, terminal_safe(FIRST), terminal_safe(THIRD))
    terminal.assert_nothing_raw()


async def test_a_typed_path_and_what_is_said_about_it_are_drawn_as_text(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The field keeps what was typed (the guard drops its escapes from the drawing); the
    error beside it and the toast show them, and read no markup."""
    terminal = Terminal(monkeypatch)
    typed = "missing \x1b]2;typed\x07 [red]m[/red].toml"
    app = PasskApp(form={"agent": "scripted", "version": "1", "cases": typed})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await terminal.shows(pilot, f"{terminal_safe(typed)}: no such file")
        app.controller.start_evaluation(scripted(typed), None)
        await terminal.shows(pilot, "Cannot start", "[red]m[/red]")
        assert app.screen.query_one("#input-cases").value == typed
    terminal.assert_nothing_raw()
