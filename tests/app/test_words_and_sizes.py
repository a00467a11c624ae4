"""The app's words and sizes: what it says matches what happens, and nothing is cut at 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Collapsible, Input

from passk_tui.core.inputs.schema import form_fields
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.widgets.key_bar import KeyBar

SMALL = (80, 24)


async def test_every_placeholder_fits_its_field_at_80_columns(app_env: Path) -> None:
    app = PasskApp(form=blank_form(), show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.screen.query_one("#cost", Collapsible).collapsed = False  # the cost fields shown
        await pilot.pause()
        for declared in form_fields():
            if declared.switch:
                continue  # a checkbox's words are beside it, not in a field
            field = app.screen.query_one(f"#input-{declared.name}", Input)
            assert len(declared.placeholder) <= field.content_region.width, declared.name


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


async def test_the_screenshot_command_says_where_it_saved_once_in_plain_words(
    app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One toast (not Textual's own beside ours), and a path with brackets in it is the path."""
    from textual.widgets._toast import Toast

    from passk_tui.tui.app import screenshot_saving

    folder = tmp_path / "shots [1]"
    folder.mkdir()
    monkeypatch.setattr(screenshot_saving, "user_downloads_path", lambda: folder)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await pilot.press("ctrl+p", *"screenshot", "enter")
        for _ in range(50):
            await pilot.pause(0.05)
            if list(folder.glob("*.svg")) and app._notifications:
                break
        await pilot.pause(0.2)
        (saved,) = folder.glob("*.svg")
        assert [n.message for n in app._notifications] == [f"Screenshot saved to {saved}"]
        shown = [str(toast.render()) for toast in app.screen.query(Toast)]
        assert len(shown) == 1 and f"Screenshot saved to {saved}" in shown[0], shown
        assert "[$" not in shown[0]
        # Where it cannot be written (a file where the folder would be): one toast, why.
        app.clear_notifications()
        blocked = tmp_path / "a-file"
        blocked.write_text("")
        app.deliver_screenshot(path=str(blocked))
        for _ in range(50):
            await pilot.pause(0.05)
            if app._notifications:
                break
        await pilot.pause(0.2)
        (failed,) = app._notifications
        assert failed.severity == "error" and failed.message.startswith("Screenshot not saved: ")


async def test_ctrl_c_says_which_key_quits_in_plain_words(app_env: Path) -> None:
    """Before: Textual's own toast, its markup shown as written ("Press [b]ctrl+q[/b] ...")."""
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause()
        said = [(n.title, n.message) for n in app._notifications]
    assert said == [("Do you want to quit?", "Press ctrl+q to quit the app")], said
