"""Configure opens filled: after a run started from flags, and on the files `passk-tui init` wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passk_tui.cli.flags import parse
from passk_tui.cli.init import run_init
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.launch import form_values, run_app
from passk_tui.tui.screens.configure.last_used import (
    for_this_folder,
    load_last_used,
    save_last_used,
)


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


#: What the last project ran: its agent against its baseline, its attempts, its gate, its prices.
LAST_PROJECT = {
    "agent": "bot",
    "version": "2",
    "baseline": "1",
    "attempts": "20",
    "k": "10",
    "require": "0.9",
    "confidence": "0.9",
    "price_in": "3",
    "price_out": "15",
    "budget_cost": "2",
    "concurrency": "8",
    "timeout": "60",
    "family_wise": True,
}


async def test_another_projects_last_settings_do_not_block_this_folders_run(
    app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Button

    last = tmp_path / "last-project"
    last.mkdir()
    (last / "agents.toml").write_text('[agents.bot]\nversions = [1, 2]\ncommand = ["true"]\n')
    (last / "cases.toml").write_text("")
    monkeypatch.chdir(last)
    save_last_used({**LAST_PROJECT, "agents": "agents.toml", "cases": "cases.toml"})
    # Back in the same folder, all of it is as it was.
    values, _ = form_values(parse([]), {})
    assert (values["baseline"], values["attempts"], values["agent"]) == ("1", "20", "bot")
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert run_init([]) == 0  # agent echo, version 1: the last baseline (1) would equal it
    notices: list[str] = []
    values, configured = form_values(parse([]), {}, notices)
    assert configured
    assert (values["agent"], values["version"], values["agents"]) == ("echo", "1", "agents.toml")
    # The last project's agent's settings are left out; the machine's own are kept.
    for name in ("baseline", "attempts", "k", "require", "confidence", "price_in"):
        assert values[name] == "", name
    assert values["budget_cost"] == "" and values["family_wise"] is False
    assert (values["concurrency"], values["timeout"]) == ("8", "60.0")
    assert notices == [
        f"This folder has its own agents.toml: the settings last used in {last} are left "
        "out (--agent bot --version 2 --attempts 20 --k 10 --require 0.9 "
        "--confidence 0.9 --baseline 1 --price-in 3 --price-out 15 --budget-cost 2 "
        "--family-wise)."
    ]
    app = PasskApp(form=values, show_timing=False, notices=notices)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#run", Button).disabled is False
        assert [n.message for n in app._notifications] == notices


def test_what_the_folder_says_again_is_not_called_left_out(tmp_path: Path) -> None:
    """`passk-tui init` names its agent echo in every folder: the same name is no news."""
    saved = {"agent": "echo", "version": "2", "baseline": "1", "concurrency": "8"}
    here = {"agents": "agents.toml", "agent": "echo", "version": "1", "cases": "cases.toml"}
    kept, said = for_this_folder(saved, tmp_path / "a", tmp_path / "b", here)
    assert kept == {"concurrency": "8"}
    assert said == (
        f"This folder has its own agents.toml: the settings last used in {tmp_path / 'a'} "
        "are left out (--version 2 --baseline 1)."
    )
    # In the folder they were used in, or where the folder has no agents file: all kept.
    assert for_this_folder(saved, tmp_path / "b", tmp_path / "b", here) == (saved, None)
    assert for_this_folder(saved, tmp_path / "a", tmp_path / "b", {"cases": "c.toml"}) == (
        saved,
        None,
    )


async def test_the_app_writes_each_export_given(app_env: Path) -> None:
    """--export given twice to the app: both files, once the evaluation ends."""
    from tests.support.app import run_to_end, scripted

    paths = [app_env / "out.json", app_env / "out.csv"]
    app = PasskApp(show_timing=False, export_paths=paths)
    async with app.run_test(size=(120, 36)) as pilot:
        app.controller.start_evaluation(scripted(attempts=2), None)
        await run_to_end(pilot)
        await pilot.pause()
    assert json.loads(paths[0].read_text())["cases"]
    assert paths[1].read_text().startswith("case,")
