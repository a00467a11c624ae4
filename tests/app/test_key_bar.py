"""The keys line: the screen's shown bindings, dimmed when disabled, a click presses the key."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from passk_tui.tui.widgets.key_bar import KeyBar


class KeysApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "sort", "Sort"),
        Binding("h", "hidden", "Hidden", show=False),
        Binding("u", "resume", "Resume"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.pressed: list[str] = []
        self.can_resume = False

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume" and not self.can_resume:
            return None  # Textual: None shows the key disabled (False would hide it)
        return True

    def action_sort(self) -> None:
        self.pressed.append("sort")

    def action_resume(self) -> None:
        self.pressed.append("resume")


def line(app: KeysApp) -> tuple[str, list]:
    strip = app.query_one(KeyBar).render_line(0)
    return "".join(s.text for s in strip), list(strip)


async def test_it_shows_the_shown_keys_and_dims_the_disabled() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        text, segments = line(app)
        assert text.startswith("s Sort u Resume") and "Hidden" not in text
        assert text.rstrip().endswith("▏^p palette") and len(text) == 60
        resume = [s for s in segments if s.text == "Resume"]
        assert resume and resume[0].style.dim  # check_action says no: shown, but dim
        assert not next(s for s in segments if s.text == "Sort").style.dim
        assert all(not s.text.startswith(" ") or not s.text.strip() for s in segments)

        app.can_resume = True
        app.refresh_bindings()
        await pilot.pause()
        assert not next(s for s in line(app)[1] if s.text == "Resume").style.dim


async def test_a_click_presses_the_key_a_disabled_one_rings() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        bar = app.query_one(KeyBar)
        await pilot.click(KeyBar, offset=(2, 0))  # on "Sort"
        await pilot.pause()
        assert app.pressed == ["sort"]
        await pilot.click(KeyBar, offset=(9, 0))  # on "Resume", disabled
        await pilot.pause()
        assert app.pressed == ["sort"]
        await pilot.click(KeyBar, offset=(30, 0))  # between keys: nothing
        assert app.pressed == ["sort"] and bar.size.height == 1
