"""Pilot tests of the second pass on the app: sizes, live views, help, sort, search, resume."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from rich.console import Console
from textual.widgets import Button, Checkbox, Input, Static
from textual.widgets.collapsible import CollapsibleTitle

from passk_tui.core.stats.progress import Cell, Progress
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.messages import ResultsOpened
from passk_tui.tui.dialogs.help import HelpScreen
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.configure.last_used import load_theme
from passk_tui.tui.screens.configure.screen import ConfigureScreen
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.attempts_grid import AttemptsGrid
from passk_tui.tui.widgets.glyphs import SYMBOLS
from passk_tui.tui.widgets.key_bar import KeyBar
from tests.support.app import (
    TABLES,
    column_keys,
    column_labels,
    run_to_end,
    scripted,
    start_mid_run,
    synthetic_view,
    wait_for,
)

SMALL = (80, 24)


def text_of(app: PasskApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def names(app: PasskApp) -> list[str]:
    table = app.screen.query_one(TABLES)
    return [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]


def grid_line(grid: AttemptsGrid, y: int) -> str:
    return "".join(segment.text for segment in grid.render_line(y))


async def test_the_grid_keeps_names_and_figures_at_100_attempts_in_80_columns(
    app_env: Path,
) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await app.push_screen(RunScreen(synthetic_view(100)))
        await pilot.pause(0.2)
        grid = app.screen.query_one(AttemptsGrid)
        header = grid_line(grid, 0)
        # The live interval column takes room: the window says "1-8/100→" (which of how many).
        assert "1-" in header and "/100" in header and "→" in header
        assert header.rstrip().endswith("pass@3 95%")
        assert all(len(grid_line(grid, y).rstrip()) <= 80 for y in range(5))
        flaky = grid_line(grid, 2)
        assert flaky.split()[0] == "flaky" and flaky.split()[-6:] == [
            "50", "50", "0", "0.50", "0.88", "0.78-0.94",
        ]  # fmt: skip
        first_cells = flaky.split()[1]
        await pilot.press("right")
        moved = grid_line(grid, 0)
        assert "←" in moved and moved != header
        assert grid_line(grid, 2).split()[0] == "flaky"  # the name stays put
        assert grid_line(grid, 2).split()[-1] == "0.78-0.94"  # and so do the figures
        assert grid_line(grid, 2).split()[1] != first_cells or "1-" not in moved


async def test_the_grid_draws_rows_of_different_lengths(app_env: Path) -> None:
    """Adaptive attempts will give cases different n: each row draws the cells it has."""
    progress = Progress(["short", "long"], 3, 2)
    progress.cells[1] = bytearray([Cell.PASSED] * 9)
    view = EvaluationView("ev_x", scripted(attempts=3, k=2), progress, stored_status="done")
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(100, 20)) as pilot:
        await app.push_screen(RunScreen(view))
        await pilot.pause(0.1)
        grid = app.screen.query_one(AttemptsGrid)
        assert grid_line(grid, 1).split()[:4] == ["short", "·", "·", "·"]
        assert grid_line(grid, 2).split()[1:10] == ["✓"] * 9


def window_keys(app: PasskApp) -> tuple[set[str], str]:
    """The grid's window moves bound now, and the keys line as drawn."""
    actions = {active.binding.action for active in app.screen.active_bindings.values()}
    keys = "".join(segment.text for segment in app.screen.query_one(KeyBar).render_line(0))
    return actions & {"cells_left", "cells_right"}, keys


async def test_the_arrow_keys_are_bound_only_where_the_window_can_move(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.push_screen(RunScreen(synthetic_view(5)))
        await pilot.pause(0.2)
        bound, keys = window_keys(app)
        assert bound == set() and "attempts" not in keys  # every attempt fits
        app.pop_screen()
        await app.push_screen(RunScreen(synthetic_view(100)))
        await pilot.pause(0.2)
        assert app.screen.query_one(AttemptsGrid).attempts_shown() == (1, 88)
        bound, keys = window_keys(app)
        assert bound == {"cells_right"} and "→ Later attempts" in keys
        assert "Earlier attempts" not in keys
        await pilot.press("right")
        await pilot.pause()
        assert app.screen.query_one(AttemptsGrid).attempts_shown() == (13, 100)
        bound, keys = window_keys(app)
        assert bound == {"cells_left"} and "← Earlier attempts" in keys
        await pilot.press("right")  # unbound now: the window stays at the end
        await pilot.pause()
        assert app.screen.query_one(AttemptsGrid).attempts_shown() == (13, 100)
        await pilot.resize_terminal(240, 50)  # wide enough for all 100: neither
        await pilot.pause(0.2)
        assert window_keys(app)[0] == set()


async def test_help_defines_the_figures_the_outcomes_and_the_glyphs(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        rendered = app.screen.body()

        console = Console(width=78, record=True)
        console.print(rendered)
        text = console.export_text()
        for term in ("pass@1", "pass@k", "pass^k", "intervals", "Clopper-Pearson", "wrong"):
            assert term in text, term
        assert "errored" in text and "The Turn did not complete" in text
        assert all(symbol in text for symbol in SYMBOLS.values())
        await pilot.press("escape")
        assert isinstance(app.screen, ConfigureScreen)


async def test_sort_reverses_on_a_second_press_and_shows_its_direction(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        # The scripted agent's outcomes, made in memory: the order is the point, not the run.
        app.post_message(ResultsOpened(synthetic_view(5)))
        await pilot.pause(0.2)
        table = app.screen.query_one(TABLES)
        widths = [c.width for c in table.columns]
        await pilot.press("n")
        assert names(app) == ["broken-tool", "flaky", "mixed", "steady"]
        assert column_labels(table)[column_keys(table).index("n")] == "case ▲"
        assert "case, A to Z" in text_of(app, "#results-order")
        await pilot.press("n")
        assert names(app) == ["steady", "mixed", "flaky", "broken-tool"]
        assert column_labels(table)[column_keys(table).index("n")] == "case ▼"
        await pilot.press("w")  # wrong, most first; ties in file order
        assert names(app) == ["flaky", "mixed", "steady", "broken-tool"]
        assert column_labels(table)[column_keys(table).index("w")] == "wrong▼"
        await pilot.press("h", "h")  # pass^k, highest first
        assert names(app)[0] == "steady"
        assert [c.width for c in table.columns] == widths  # a sort never shifts the table
        assert "pass^3, highest first" in text_of(app, "#results-order")
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1  # End is the last case, not sideways
        await pilot.press("home")
        assert table.cursor_row == 0


async def test_filter_and_search_say_when_they_are_on(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.controller.start_evaluation(scripted(), None)
        await run_to_end(pilot)
        await pilot.press("f")
        assert "FILTER" in text_of(app, "#results-order")
        await pilot.press("f", "slash", *"ix", "enter")
        assert names(app) == ["mixed"]
        assert "SEARCH" in text_of(app, "#results-order") and "'ix'" in text_of(
            app, "#results-order"
        )
        await pilot.press("slash", "escape")
        assert len(names(app)) == 4
        # On the Run grid: the same search narrows the rows.
        await pilot.press("escape")
        assert isinstance(app.screen, RunScreen)
        grid = app.screen.query_one(AttemptsGrid)
        await pilot.press("slash", *"fla", "enter")
        assert grid.rows == [1]
        await pilot.press("enter")
        assert isinstance(app.screen, CaseScreen) and app.screen.case_index == 1
        # On History: evaluations by id, agent or status.
        await pilot.press("escape", "f2")
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("slash", *"nobody")
        assert app.screen.query_one(TABLES).row_count == 0
        assert "SEARCH: 0 of 1" in text_of(app, "#history-note")


async def test_results_header_counts_what_happened(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        # The scripted agent's 20 outcomes, made in memory: the header's counts are the point.
        app.post_message(ResultsOpened(synthetic_view(5, require=Fraction(91, 100))))
        await pilot.pause(0.2)
        status = text_of(app, "#results-status")
        assert status.startswith("Done: 20 of 20 attempts")
        assert "✓ 10 passed" in status and "✗ 3 wrong" in status and "! 7 errored" in status
        assert text_of(app, "#results-cases").startswith("1 of 4 cases all passed  ·  intervals")
        assert "2 of 4 cases have pass@3 below 0.91" in text_of(app, "#results-gate")
        # The failing case's name is not in errored's colour; its figure is marked instead.
        table = app.screen.query_one(TABLES)
        row = table.get_row_at(names(app).index("mixed"))
        assert not row[0].style or "outcome" not in str(row[0].style)
        assert "reverse" in str(row[5].spans[-1].style)


async def test_an_interrupted_evaluation_says_so_and_offers_resume(
    app_env: Path, monkeypatch
) -> None:
    view = synthetic_view(4)
    view.stored_status = "interrupted"
    view.progress.cells[0][3] = Cell.PENDING  # as if the last attempt never ran
    app = PasskApp(show_timing=False)
    asked: list[str] = []
    monkeypatch.setattr(app.controller, "resume", asked.append)
    async with app.run_test(size=SMALL) as pilot:
        app.post_message(ResultsOpened(view))
        await pilot.pause(0.2)
        status = text_of(app, "#results-status")
        assert status.startswith("Interrupted, 16 of 16 attempts finished: u resumes it")
        assert "Could not run" not in status
        await pilot.press("u")
        assert asked == ["ev_synthetic"]


async def test_the_cancel_dialog_closes_when_the_run_ends_behind_it(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await start_mid_run(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "ConfirmScreen"
        app.controller.cancel_evaluation()  # the run ends while the question is still open
        await run_to_end(pilot)
        assert isinstance(app.screen, ResultsScreen)


async def test_live_views_stop_saying_live_when_the_run_ends(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await start_mid_run(pilot)
        live = app.controller.view
        # History opens the evaluation running here as the live view, not a frozen copy.
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ResultsScreen) and app.screen.view is live
        assert "Running (live)" in text_of(app, "#results-status")
        await pilot.press("enter")
        assert isinstance(app.screen, CaseScreen)
        assert "(live)" in text_of(app, "#case-figures")
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        await pilot.pause(0.3)
        assert "(live)" not in text_of(app, "#case-figures")


async def test_a_snapshot_of_a_run_elsewhere_is_not_called_live(app_env: Path) -> None:
    view = synthetic_view(3)
    view.stored_status = "running"  # another process runs it; this is what the store holds
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.post_message(ResultsOpened(view))
        await pilot.pause(0.2)
        status = text_of(app, "#results-status")
        assert "Running elsewhere" in status and "snapshot" in status
        assert "(live)" not in status


async def test_configure_has_no_dead_focus_stop_and_d_only_where_offered(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        seen = []
        for _ in range(16):
            await pilot.press("tab")
            seen.append(type(app.focused))
        assert set(seen) <= {Input, Checkbox, CollapsibleTitle, Button}  # the title opens Cost
        app.screen.query_one("#history", Button).focus()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfigureScreen)  # no demo: it was not offered
        assert "configure-problems" in {w.id for w in app.screen.query(Static)}
        assert app.screen.query_one("#configure-problems").region.bottom <= SMALL[1] - 1


async def test_the_theme_is_remembered(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.theme = "textual-light"
        await pilot.pause()
    assert load_theme() == "textual-light"
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert app.theme == "textual-light"


async def test_the_case_screen_explains_empty_answers_and_hides_empty_columns(
    app_env: Path,
) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SMALL) as pilot:
        app.controller.start_evaluation(scripted(), None)
        await run_to_end(pilot)
        await pilot.press("down", "down", "enter")  # broken-tool: every attempt errored
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        table = screen.query_one(TABLES)
        labels = column_labels(table)
        # No ids locally; at 80 columns the Turn status is in the pane's verdict, not the list.
        assert labels == ["attempt", "outcome", "duration"]
        assert "Turn failed" in text_of(app, "#attempt-verdict")
        answer = screen.query_one("#attempt-answer")
        assert answer.text == "" and "no answer: the Turn ended failed" in str(answer.placeholder)
        assert 'check = { equals = "391" }' in text_of(app, "#case-spec")
        assert "scripted v1 · cases.toml" in EvaluationView.title(screen.view)
