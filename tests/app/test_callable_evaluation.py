"""A Python callable's stored evaluation in the app: Resume and More attempts are not offered,
and the keys line, the palette and help say why in the CLI's words (the Python call)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from passk_tui.core.attempt import Outcome
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.agent_definition import python_definition
from passk_tui.core.run.cases import load_cases
from passk_tui.evaluations.resume_rules import refuse_callable
from passk_tui.store import Store
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.messages import StoredEvaluationOpened
from passk_tui.tui.dialogs.help import HelpScreen
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from tests.support.records import CASES, record, settings_for

SIZE = (120, 36)


def stored_callable(folder: Path, status: str) -> str:
    """Two cases, flaky under a 0.8 gate (so More attempts would help), run by a callable."""
    cases_file = folder / "cases.toml"
    cases_file.write_text(CASES)
    settings = settings_for(cases_file, agent="notebook", attempts=3, k=1, require=0.8)
    records = [
        record(c, a, Outcome.WRONG if a == 2 else Outcome.PASSED, key=f"ev_py/{c}/{a}")
        for c in (0, 1)
        for a in (1, 2, 3)
    ]
    with Store.open() as store:
        store.create_evaluation(
            "ev_py",
            settings,
            load_cases(cases_file),
            "h",
            created=1.0,
            definition=python_definition("my_notebook.agent"),
        )
        store.write("ev_py", records[: 6 if status == "done" else 4])
        store.finish("ev_py", status)
        return "ev_py"


def refusal(evaluation_id: str) -> str:
    """What `passk-tui --resume ID` says after its flag: the words the app must use too."""
    with Store.open() as store:
        stored = store.load(evaluation_id)
    with pytest.raises(InputError) as refused:
        refuse_callable(stored)
    prefix = f"--resume {evaluation_id}: "
    assert str(refused.value).startswith(prefix)
    return str(refused.value).removeprefix(prefix)


def help_text(app: PasskApp) -> str:
    assert isinstance(app.screen, HelpScreen)
    console = Console(width=200, record=True)
    console.print(app.screen.body())
    return " ".join(console.export_text().split())


async def test_results_does_not_offer_more_attempts_and_says_why(app_env: Path) -> None:
    evaluation_id = stored_callable(app_env, "done")
    why = refusal(evaluation_id)
    assert "passk_tui.evaluate(agent, resume='ev_py')" in why
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(StoredEvaluationOpened(evaluation_id))
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        assert screen.active_bindings["m"].enabled is False
        gate = " ".join(str(screen.query_one("#results-gate").render()).split())
        assert gate.endswith(f"more attempts for 2 unsettled cases: {why}")
        assert "m: more" not in gate
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is screen  # no dialog, no refusal after it
        commands = {c.title: c.help for c in app.get_system_commands(screen)}
        assert commands["More attempts"] == f"Not here: {why}"
        await pilot.press("question_mark")
        await pilot.pause()
        assert f"More attempts: Extend the undecided or flaky cases: attempts per case up to N " \
            f"(not now: {why})" in help_text(app)  # fmt: skip


async def test_an_interrupted_one_cannot_be_resumed_here_and_history_says_why(
    app_env: Path,
) -> None:
    evaluation_id = stored_callable(app_env, "interrupted")
    why = refusal(evaluation_id)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause(0.3)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        assert history.active_bindings["u"].enabled is False  # on the keys line, dimmed
        commands = {c.title: c.help for c in app.get_system_commands(history)}
        assert commands["Resume"] == f"Not here: {why}"
        await pilot.press("u")
        await pilot.pause()
        assert (
            app.screen is history and app.controller.view is None
        )  # nothing started, nothing refused
        await pilot.press("question_mark")
        await pilot.pause()
        assert f"(not now: {why})" in help_text(app)
        await pilot.press("escape", "enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ResultsScreen)
        assert app.screen.active_bindings["u"].enabled is False
        assert app.screen.active_bindings["m"].enabled is False


async def test_an_agents_evaluation_still_offers_both(app_env: Path) -> None:
    evaluation_id = stored_callable(app_env, "interrupted")
    with Store.open() as store:
        store.keep_definition(evaluation_id, {"kind": "command", "argv": ["python3", "a.py"]})
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(StoredEvaluationOpened(evaluation_id))
        await pilot.pause(0.3)
        assert isinstance(app.screen, ResultsScreen)
        assert app.screen.active_bindings["u"].enabled is True
        assert app.screen.active_bindings["m"].enabled is True
        gate = str(app.screen.query_one("#results-gate").render())
        assert "Python" not in gate
