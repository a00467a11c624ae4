"""Switching the theme live restyles every screen already open, not only those opened after.

The screens below the top one are checked as they come back to the top: their
Rich text was coloured in Python from the theme it was drawn in, which a switch
must redraw (the stylesheet's refresh alone leaves it in the old theme's colours).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.messages import ResultsOpened
from passk_tui.tui.screens.run import RunScreen
from tests.app.test_contrast import unreadable
from tests.support.app import synthetic_view

SIZE = (100, 30)
THEMES = ("textual-dark", "textual-light")
#: The stack built before each switch, bottom first; each is checked as it comes on top.
STACK = ("run", "history", "results", "case")


async def open_stack(pilot: Pilot) -> None:
    """Run (a finished evaluation made in memory), History, Results, one case."""
    app = pilot.app
    view = synthetic_view(5)
    await app.push_screen(RunScreen(view))
    await pilot.pause(0.2)
    await pilot.press("f2")
    await pilot.pause(0.2)
    app.post_message(ResultsOpened(view))
    await pilot.pause(0.3)
    await pilot.press("down", "enter")
    await pilot.pause(0.3)


@pytest.mark.parametrize("first", THEMES)
async def test_open_screens_follow_a_live_theme_switch(app_env: Path, first: str) -> None:
    other = next(theme for theme in THEMES if theme != first)
    app = PasskApp(show_timing=False)
    seen: dict[str, dict[str, float]] = {}
    async with app.run_test(size=SIZE) as pilot:
        app.theme = first
        await pilot.pause(0.2)
        for theme in (other, first):
            await open_stack(pilot)
            app.theme = theme
            await pilot.pause(0.3)
            for name in reversed(STACK):
                seen[f"{theme}: {name}"] = unreadable(app)
                await pilot.press("escape")
                await pilot.pause(0.3)
    failing = {screen: low for screen, low in seen.items() if low}
    assert not failing, "\n".join(f"{s}: {sorted(low.items())[:4]}" for s, low in failing.items())
