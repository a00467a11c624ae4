"""Pilot tests of the app's behaviour: configure, run, results, case, cancel, exit status."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from textual.widgets import Button, Input, Static

from passk_tui.cli.flags import parse
from passk_tui.core.errors import ExitCode
from passk_tui.core.stats.progress import Cell
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.evaluations.settings_text import validate
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.launch import form_values, starts_at_once
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.configure.last_used import load_last_used, settings_file
from passk_tui.tui.screens.configure.screen import ConfigureScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.widgets.attempts_grid import AttemptsGrid
from passk_tui.tui.widgets.run_summary import LiveLine
from tests.support.app import (
    TABLES,
    blocking,
    column_keys,
    column_labels,
    fill,
    message,
    run_to_end,
    scripted,
    start_mid_run,
    wait_for,
)

SIZE = (120, 36)
P, W, E = Cell.PASSED, Cell.WRONG, Cell.ERRORED
#: What tests/support/app_agents/cases.toml gives with 5 attempts run one at a time.
EXPECTED_CELLS = [
    [P, P, P, P, P],  # steady
    [P, W, P, W, P],  # flaky
    [E, E, E, E, E],  # broken-tool
    [P, E, W, P, E],  # mixed
]
EXPECTED_TABLE = [
    ("steady", "5/5", "0", "0", "1.00", "1.00", "0.85-1.00", "yes", "1.00"),
    ("flaky", "3/5", "2", "0", "0.60", "1.00", "0.37-1.00", "no", "0.10"),
    ("broken-tool", "0/5", "0", "5", "0.00", "0.00", "0.00-0.90", "no", "0.00"),
    ("mixed", "2/5", "1", "2", "0.40", "0.90", "0.15-1.00", "no", "0.00"),
]


def table_text(table) -> list[tuple[str, ...]]:
    """Each row's cells as text, without the padding that right-aligns numbers (and without
    the Results table's interval bars, drawn not written)."""
    keys = column_keys(table)
    return [
        tuple(
            str(cell).strip()
            for key, cell in zip(keys, table.get_row_at(i), strict=True)
            if key != "bar"
        )
        for i in range(table.row_count)
    ]


# -- configure ---------------------------------------------------------------------------


async def test_configure_rejects_bad_values_and_enables_run_when_valid(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ConfigureScreen)
        run = app.screen.query_one("#run", Button)
        assert run.disabled  # nothing filled in yet
        await pilot.click("#input-agent")
        await pilot.press(*"scripted")
        await fill(pilot, version="1", cases="cases.toml")
        assert not run.disabled, app.screen.check.errors

        bad = {
            "attempts": ("0", "must be at least 1"),
            "k": ("9", "between 1 and the attempts (5)"),
            "require": ("1.5", "between 0 and 1"),
            "concurrency": ("many", "whole number"),
            "timeout": ("-1", "positive number"),
            "cases": ("missing.toml", "no such file"),
            "version": ("7", "no version 7 (versions: 1)"),
            "agent": ("nobody", "agents: scripted"),
            "stack": ("ftp://x", "http:// or https://"),
        }
        for field, (value, expected) in bad.items():
            before = app.screen.query_one(f"#input-{field}", Input).value
            await fill(pilot, **{field: value})
            assert run.disabled, field
            assert expected in str(message(app, field).render()), field
            assert message(app, field).has_class("-error")
            await fill(pilot, **{field: before})
            assert not run.disabled, (field, app.screen.check.errors)


async def test_run_with_whole_suite_alone_focuses_its_checkbox(app_env: Path) -> None:
    """Whole suite without require and confidence: Ctrl+R lands on the checkbox (it once
    looked for an Input there and crashed the app)."""
    form = blank_form() | {"agent": "scripted", "version": "1", "cases": "cases.toml"}
    app = PasskApp(form=form | {"family_wise": True}, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        assert isinstance(app.screen, ConfigureScreen)
        assert app.focused is app.screen.query_one("#input-family_wise")
        assert str(message(app, "family_wise").render()) == "needs require and confidence"


async def test_configure_shows_the_validators_message_at_the_field(app_env: Path) -> None:
    """Each bad field says what the flags' validator says for it (the CLI's words after the
    flag), including what the form once let through: control characters, credentials."""
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        good = {"agent": "scripted", "version": "1", "cases": "cases.toml"}
        await fill(pilot, **good)
        run = app.screen.query_one("#run", Button)
        assert not run.disabled, app.screen.check.errors
        bad = {
            "agent": "scr\x1bipted",
            "stack": "http://user:secret@stack.example",
            "key": "short",
            "attempts": "0",
            "timeout": "soon",
        }
        for field, value in bad.items():
            expected = validate(good | {field: value}).errors[field]
            await fill(pilot, **{field: value})
            assert run.disabled, field
            assert str(message(app, field).render()) == terminal_safe(expected), field
            assert message(app, field).has_class("-error"), field
            await fill(pilot, **{field: good.get(field, "")})
            assert not run.disabled, (field, app.screen.check.errors)


async def test_run_from_configure_saves_settings_but_never_the_key(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await fill(
            pilot,
            agent="scripted",
            version="1",
            cases="cases.toml",
            attempts="2",
            k="2",
            require="0.5",
            agents="agents.toml",
            key="sk-very-secret",
        )
        await pilot.click("#run")
        await pilot.pause()
        # A fast agent may already have finished and moved on to Results.
        assert isinstance(app.screen, RunScreen | ResultsScreen)
        await run_to_end(pilot)
    saved = settings_file().read_text()
    assert "sk-very-secret" not in saved and "key" not in saved
    restored = load_last_used()
    assert restored["agent"] == "scripted" and restored["attempts"] == "2"
    assert restored["require"] == "0.5"
    assert Path(str(restored["cases"])).is_absolute()

    # Next time: the fields come back, and a flag wins over the saved value.
    values, configured = form_values(parse(["--attempts", "4"]), {})
    assert configured and values["agent"] == "scripted" and values["attempts"] == "4"
    app = PasskApp(form=values, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.query_one("#input-agent", Input).value == "scripted"
        assert app.screen.query_one("#input-key", Input).value == ""
        assert not app.screen.query_one("#run", Button).disabled


async def test_fresh_start_types_into_agent_and_offers_the_demo_a_shift_tab_away(
    app_env: Path, monkeypatch
) -> None:
    monkeypatch.chdir(app_env)  # no agents.toml here: nothing configured at all
    values, configured = form_values(parse([]), {})
    assert not configured
    app = PasskApp(form=values, offer_demo=True, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.query_one("#demo-offer")
        agent = app.screen.query_one("#input-agent", Input)
        assert app.focused is agent
        # What looks like a form is one: the screen's and the app's letters are typed.
        await pilot.press(*"demo?q")
        await pilot.pause()
        assert isinstance(app.screen, ConfigureScreen) and agent.value == "demo?q"
        await pilot.press("tab")
        assert app.focused is app.screen.query_one("#input-version", Input)
        # The demo: its button is just before the first field.
        await pilot.press("shift+tab", "shift+tab")
        assert app.focused is app.screen.query_one("#demo", Button)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        assert app.controller.view.settings.agent == "demo"
        await run_to_end(pilot)
        assert isinstance(app.screen, ResultsScreen)
    assert not settings_file().exists()  # the demo is not "last used"


def test_flags_decide_whether_the_run_starts_at_once() -> None:
    assert starts_at_once(parse(["--demo"]))
    assert starts_at_once(parse(["--agent", "a", "--version", "1", "--cases", "c.toml"]))
    assert not starts_at_once(parse(["--agent", "a", "--cases", "c.toml"]))
    assert not starts_at_once(parse([]))
    assert starts_at_once(parse(["--resume", "last"]))


# -- run, results, case ------------------------------------------------------------------


async def test_run_fills_every_cell_and_ends_on_the_right_table(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(), None)
        await pilot.pause()
        assert isinstance(app.screen, RunScreen | ResultsScreen)  # fast runs move on
        await run_to_end(pilot)
        assert [list(row) for row in app.controller.view.progress.cells] == EXPECTED_CELLS
        assert isinstance(app.screen, ResultsScreen)
        table = app.screen.query_one(TABLES)
        assert column_labels(table) == [
            "case", "passed", "wrong", "errored", "pass@1", "pass@3", "pass@3 95% CI", "",
            "all passed", "pass^3",
        ]  # fmt: skip
        assert table_text(table) == EXPECTED_TABLE
        assert "No gate" in str(app.screen.query_one("#results-gate", Static).render())
    assert app.exit_status == 0


async def test_results_gate_sort_and_filter(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(require=Fraction(91, 100)), None)
        await run_to_end(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        gate = str(screen.query_one("#results-gate", Static).render())
        assert "Gate failed" in gate and "broken-tool (0.00)" in gate
        assert "flaky" not in gate and "steady" not in gate
        assert "below 0.91" in gate and "mixed (0.90)" in gate  # exact 0.9 < 0.91
        table = screen.query_one(TABLES)

        def names() -> list[str]:
            return [row[0] for row in table_text(table)]

        await pilot.press("n")
        assert names() == ["broken-tool", "flaky", "mixed", "steady"]
        await pilot.press("p")
        assert names() == ["broken-tool", "mixed", "steady", "flaky"]
        await pilot.press("e")
        assert names() == ["broken-tool", "mixed", "steady", "flaky"]
        await pilot.press("o", "f")
        assert names() == ["flaky", "broken-tool", "mixed"]
        await pilot.press("f")
        assert len(names()) == 4
    assert app.exit_status == 1
    assert any("broken-tool" in line for line in app.exit_messages())


async def test_enter_opens_a_case_from_the_grid_and_from_the_results(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(), None)
        await run_to_end(pilot)
        # From the results: the cursor row's case.
        await pilot.press("down", "down", "down", "enter")
        assert isinstance(app.screen, CaseScreen) and app.screen.case_index == 3
        table = app.screen.query_one(TABLES)
        outcomes = [str(row[1]) for row in table_text(table)]
        assert outcomes == ["✓ passed", "! errored", "✗ wrong", "✓ passed", "! errored"]
        verdict = str(app.screen.query_one("#attempt-verdict", Static).render())
        assert "passed" in verdict
        await pilot.press("down")
        verdict = str(app.screen.query_one("#attempt-verdict", Static).render())
        assert "rate limited" in verdict and "failed" in verdict
        await pilot.press("down")
        verdict = str(app.screen.query_one("#attempt-verdict", Static).render())
        assert "expected '391', got 'twelve'" in verdict
        await pilot.press("escape", "escape")
        # From the grid: Enter on the cursor row.
        assert isinstance(app.screen, RunScreen)
        await pilot.press("down", "enter")
        assert isinstance(app.screen, CaseScreen) and app.screen.case_index == 1


async def test_case_screen_is_live_while_the_run_goes_on(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_mid_run(pilot)
        await pilot.press("enter")
        assert isinstance(app.screen, CaseScreen)
        rows = table_text(app.screen.query_one(TABLES))
        assert [row[1] for row in rows] == ["✓ passed", "✓ passed", "· pending"]
        await pilot.press("escape", "down", "enter")
        rows = table_text(app.screen.query_one(TABLES))
        assert [row[1] for row in rows] == ["◔ running", "◔ running", "· pending"]
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        await pilot.pause(0.3)
        rows = table_text(app.screen.query_one(TABLES))
        assert [row[1] for row in rows] == ["· pending"] * 3  # withdrawn: measured nothing


async def test_cancel_asks_then_cancels_the_runs_in_flight(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        progress = await start_mid_run(pilot)
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("n")  # keep running
        await pilot.pause(0.2)
        assert app.controller.running and progress.in_flight == 2
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("y")
        await run_to_end(pilot)
        assert app.controller.view.status == "cancelled"
        assert progress.in_flight == 0
        assert [list(row) for row in progress.cells] == [[P, P, Cell.PENDING], [Cell.PENDING] * 3]
        assert progress.records[1] == []  # withdrawn, counted nowhere
        assert not app.controller.view.evaluation.target._running  # every agent process reaped
        assert isinstance(app.screen, ResultsScreen)
        assert "Cancelled, 2 of 6 attempts finished: u resumes it" in str(
            app.screen.query_one("#results-status", Static).render()
        )
    assert app.exit_status == ExitCode.CANCELLED


async def test_quit_mid_run_cancels_first(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(blocking(), None)
        progress = app.controller.view.progress
        await wait_for(pilot, lambda: progress.in_flight == 2)
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: app.controller.worker.is_finished)
    assert progress.in_flight == 0
    assert app.exit_status == ExitCode.CANCELLED


async def test_an_unreachable_stack_is_reported_with_exit_3(app_env: Path) -> None:
    from dataclasses import replace

    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(replace(scripted(), stack="http://127.0.0.1:9"), None)
        await run_to_end(pilot)
        assert isinstance(app.screen, RunScreen)
        status = str(app.screen.query_one("#run-status", LiveLine).text)
        assert "Could not run" in status and "unreachable" in status
    assert app.exit_status == 3
    assert "unreachable" in app.exit_messages()[0]


async def test_the_grid_draws_only_what_is_visible(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(), None)
        await run_to_end(pilot)
        await pilot.press("escape")
        grid = app.screen.query_one(AttemptsGrid)
        line = "".join(segment.text for segment in grid.render_line(2))
        assert line.split()[:6] == ["flaky", "✓", "✗", "✓", "✗", "✓"]
        # 3 of 5 passed: pass@3 1.00, its exact 95% interval from p in [0.15, 0.95]
        assert line.split()[6:] == ["3", "2", "0", "0.60", "1.00", "0.37-1.00"]


async def test_the_command_palette_lists_the_screen_actions(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(blocking(), None)
        await pilot.pause()
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Cancel run", "Results", "Open case"} <= titles
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Sort name", "Sort pass@k", "Sort errored", "Problems only"} <= titles
        assert "Open case" in titles and "Help" in titles
        assert not {"Up", "Down", "Cursor up", "Cursor down", "Page up", "First"} & titles


# -- history -------------------------------------------------------------------------------


async def test_history_lists_stored_evaluations_and_opens_their_results(app_env: Path) -> None:
    from passk_tui.tui.screens.history import HistoryScreen

    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(), None)
        await run_to_end(pilot)
        evaluation_id = app.controller.view.evaluation_id
        await pilot.press("f2")
        assert isinstance(app.screen, HistoryScreen)
        rows = table_text(app.screen.query_one(TABLES))
        assert len(rows) == 1 and evaluation_id.startswith(rows[0][0].rstrip("…"))
        assert rows[0][1] == "done"
        assert rows[0][3:] == ("scripted", "1", "4", "20/20", "-", "-")  # no gate: no decided
        await pilot.press("enter")
        assert isinstance(app.screen, ResultsScreen)
        assert app.screen.view.evaluation is None  # loaded from the store, not the live one
        assert table_text(app.screen.query_one(TABLES)) == EXPECTED_TABLE
        await pilot.press("enter")
        assert isinstance(app.screen, CaseScreen)
        outcomes = [row[1] for row in table_text(app.screen.query_one(TABLES))]
        assert outcomes == ["✓ passed"] * 5


async def test_history_resumes_a_cancelled_evaluation(app_env: Path) -> None:
    from passk_tui.tui.screens.history import HistoryScreen

    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_mid_run(pilot)
        first = app.controller.view
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        await pilot.press("f2")
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("u")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen | ResultsScreen)  # fast runs move on
        resumed = app.controller.view
        assert resumed is not first and resumed.evaluation_id == first.evaluation_id
        # The two withdrawn attempts run first (again), under their retake keys.
        await wait_for(pilot, lambda: resumed.progress.in_flight == 2)
        assert list(resumed.progress.cells[0]) == [P, P, Cell.PENDING]
        assert list(resumed.progress.cells[1]) == [Cell.RUNNING, Cell.RUNNING, Cell.PENDING]
        app.controller.cancel_evaluation()
        await run_to_end(pilot)


async def test_configure_asks_the_stack_for_versions(app_env: Path, stack) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        run = app.screen.query_one("#run", Button)
        await fill(
            pilot, stack=stack.url, key="secret-key", agent="demo", version="9", cases="cases.toml"
        )
        await wait_for(pilot, lambda: "versions: 1, 2, 3" in str(message(app, "version").render()))
        assert "not on the stack" in str(message(app, "version").render())
        assert run.disabled
        await fill(pilot, version="2")
        assert not run.disabled, app.screen.check.errors
        await fill(pilot, agent="nobody")
        await wait_for(pilot, lambda: "not found" in str(message(app, "agent").render()))
        assert run.disabled
    assert stack.stats().runs_created == 0
