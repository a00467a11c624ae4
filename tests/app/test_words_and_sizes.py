"""The app's words and sizes: what it says matches what happens, and nothing is cut at 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Collapsible, Input

from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.configure.screen import FIELDS
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.widgets.key_bar import KeyBar

SMALL = (80, 24)


async def test_every_placeholder_fits_its_field_at_80_columns(app_env: Path) -> None:
    app = PasskApp(form=blank_form(), show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.screen.query_one("#cost", Collapsible).collapsed = False  # the cost fields shown
        await pilot.pause()
        for name, (_, placeholder) in FIELDS.items():
            field = app.screen.query_one(f"#input-{name}", Input)
            assert len(placeholder) <= field.content_region.width, name


async def test_historys_keys_line_fits_80_columns(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await app.push_screen(HistoryScreen())
        await pilot.pause()
        line = "".join(s.text for s in app.screen.query_one(KeyBar).render_line(0))
        assert "? Help" in line and "^p Commands" in line


async def test_a_screenshot_without_a_downloads_folder_is_saved_here_and_said(
    app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from passk_tui.tui.app import screenshot_saving

    monkeypatch.setattr(screenshot_saving, "user_downloads_path", lambda: tmp_path / "none")
    monkeypatch.chdir(tmp_path)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.deliver_screenshot()
        for _ in range(50):
            await pilot.pause(0.05)
            if app._notifications:
                break
        said = [n.message for n in app._notifications]
    (saved,) = tmp_path.glob("*.svg")
    assert f"Screenshot saved to {saved}" in said, said
    # Its spaces kept by SVG viewers outside browsers (leading ones, under textLength).
    assert saved.read_text(encoding="utf-8").startswith('<svg xml:space="preserve" ')
