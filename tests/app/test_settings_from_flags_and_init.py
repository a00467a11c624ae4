"""Configure opens filled: after a run started from flags, and on the files `passk-tui init` wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passk_tui.cli.flags import parse
from passk_tui.cli.init import run_init
from passk_tui.tui.app import PasskApp
from passk_tui.tui.last_used import load_last_used
from passk_tui.tui.launch import form_values, run_app


def test_after_init_configure_is_filled_from_the_working_folder(
    app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert run_init([]) == 0
    values, configured = form_values(parse([]), {})
    assert (values["agent"], values["version"], values["cases"], values["agents"]) == (
        "echo",
        "1",
        "cases.toml",
        "agents.toml",
    )
    assert configured  # no "New here?": this folder says what to measure
    # With a stack, the agents are the stack's: only the cases file is taken.
    values, _ = form_values(parse([]), {"PASSK_STACK": "http://127.0.0.1:9"})
    assert (values["agent"], values["cases"]) == ("", "cases.toml")


def test_a_run_started_from_flags_is_remembered_for_the_next_configure(
    app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_init([]) == 0
    monkeypatch.setattr(PasskApp, "run", lambda self, *a, **kw: None)  # the app not shown
    flags = ["--agent", "echo", "--version", "1", "--cases", "cases.toml", "--attempts", "2"]
    run_app(parse(flags), {})
    saved = load_last_used()
    assert (saved["agent"], saved["version"], saved["attempts"]) == ("echo", "1", "2")
    assert saved["cases"] == str(tmp_path / "cases.toml")  # made absolute: opens from anywhere
    assert "key" not in saved


async def test_the_app_writes_each_export_given(app_env: Path) -> None:
    """--export given twice to the app: both files, once the evaluation ends."""
    from tests.support.app import run_to_end, scripted

    paths = [app_env / "out.json", app_env / "out.csv"]
    app = PasskApp(show_timing=False, export_paths=paths)
    async with app.run_test(size=(120, 36)) as pilot:
        app.start_evaluation(scripted(attempts=2), None)
        await run_to_end(pilot)
        await pilot.pause()
    assert json.loads(paths[0].read_text())["cases"]
    assert paths[1].read_text().startswith("case,")
