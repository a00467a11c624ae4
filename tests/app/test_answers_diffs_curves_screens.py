"""Pilot tests of the new views, opened by their keys from Results and Case on fixed demo data."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, OptionList, Select, Static

from passk_tui.core.render.reproduce import headless_command
from passk_tui.store.connection import data_dir
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.dialogs.copy import CopyScreen
from passk_tui.tui.dialogs.export import ExportScreen
from passk_tui.tui.screens.answer_diff import DiffScreen
from passk_tui.tui.screens.answers import AnswersScreen
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.costs import CostsScreen
from passk_tui.tui.screens.curve import CurveScreen
from passk_tui.tui.screens.errors import ErrorsScreen
from passk_tui.tui.screens.forest import ForestScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.widgets.forest import ForestPlot
from tests.support.app import TABLES, run_to_end, scripted
from tests.support.demo_store import RESET, WEATHER, stored_demo_view

SIZE = (80, 24)
CAPITAL = 1  # the demo's second case: "Sydney" four times, "Canberra" once


def rows(table) -> list[tuple[str, ...]]:
    return [tuple(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def open_results(pilot, show_timing: bool = False) -> ResultsScreen:
    view = stored_demo_view()
    pilot.app.push_screen(ResultsScreen(view))
    await pilot.pause()
    return pilot.app.screen


async def press_into(pilot, key: str, kind: type):
    """Press ``key`` and return the screen it opened, which must be a ``kind``."""
    await pilot.press(key)
    assert isinstance(pilot.app.screen, kind), pilot.app.screen
    return pilot.app.screen


async def open_capital(pilot) -> CaseScreen:
    await open_results(pilot)
    await pilot.press("down", "enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CaseScreen)
    return pilot.app.screen


async def test_errors_grouped_across_cases_largest_first(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_results(pilot)
        screen = await press_into(pilot, "E", ErrorsScreen)
        assert "6 errored attempts in 3 cases, 3 kinds of error" in shown(screen, "#errors-summary")
        table = rows(screen.query_one(TABLES))
        assert [row[:2] for row in table] == [
            ("3x", "weather-tool x3"),
            ("2x", "json-shape x1, summary x1"),
            ("1x", "weather-tool x1"),
        ]
        # Ids are stripped so the two resets meet; at 80 columns long errors are cut short.
        labels = [
            f"failed: {WEATHER}",
            "failed: " + RESET.format("<id>"),
            "timed_out: no Turn within the 30 s deadline",
        ]
        for (_, _, cell), label in zip(table, labels, strict=True):
            assert cell.rstrip("…") == label[: len(cell.rstrip("…"))] and len(cell) > 18
        assert "weather-tool (3): #1 #2 #4" in shown(screen, "#errors-detail")
        await pilot.press("down")
        assert "json-shape (1): #5" in shown(screen, "#errors-detail")
        await pilot.press("c")
        assert app.clipboard == RESET.format("run_01JDX8Q2ZK4M7N9P0R3S5T6V8W")


async def test_distinct_answers_with_counts_and_verdicts(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_capital(pilot)
        screen = await press_into(pilot, "A", AnswersScreen)
        assert "2 distinct answers: Sydney x4, Canberra x1" in shown(screen, "#answers-summary")
        assert rows(screen.query_one(TABLES)) == [
            ("x4", "4 wrong", "Sydney", "#1 #3 #4 #5"),
            ("x1", "1 passed", "Canberra", "#2"),
        ]
        await pilot.press("down", "c")
        assert app.clipboard == "Canberra"


async def test_diff_defaults_to_first_passing_against_first_failing(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_capital(pilot)
        screen = await press_into(pilot, "D", DiffScreen)
        title = shown(screen, "#diff-title")
        assert "- attempt 2 ✓ passed" in title and "+ attempt 1 ✗ wrong" in title
        assert shown(screen, "#diff-lines") == "- Canberra\n+ Sydney"
        await pilot.press("s")
        assert shown(screen, "#diff-lines") == "- Sydney\n+ Canberra"
        screen.query_one("#diff-new", Select).value = 3  # another Sydney
        await pilot.pause()
        assert shown(screen, "#diff-lines") == "The two answers are the same."


async def test_diff_of_a_case_with_nothing_to_pair_opens_blank(app_env: Path) -> None:
    """A case whose answers all pass alike has no default pair: both choices start empty."""
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_results(pilot)
        await pilot.press("enter")
        await pilot.pause()
        screen = await press_into(pilot, "D", DiffScreen)
        assert screen.pair is None
        assert screen.query_one("#diff-old", Select).value is Select.NULL


async def test_curve_shows_every_k_with_its_interval(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_capital(pilot)
        screen = await press_into(pilot, "g", CurveScreen)
        assert "1/5 passed   pass@k and pass^k for k = 1..5" in shown(screen, "#curve-title")
        table = rows(screen.query_one(TABLES))
        # 1 of 5: pass@3 = 1 - C(4,3)/C(5,3) = 0.60, pass^3 = 0; 95% exact rate [0.0051, 0.7164],
        # its ends rounded outward.
        assert table[0] == ("1", "0.20", "0.00-0.72", "0.20", "0.00-0.72")
        assert table[2] == ("3", "0.60", "0.01-0.98", "0.00", "0.00-0.37")
        assert [r[0] for r in table] == ["1", "2", "3", "4", "5"]
        plot = str(screen.query_one("#curve-plot").render())
        assert "●" in plot and "◆" in plot and "1.00 ┤" in plot


async def test_forest_plot_has_a_row_per_case_with_its_verdict(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_results(pilot)
        screen = await press_into(pilot, "i", ForestScreen)
        assert "gate 0.8" in shown(screen, "#forest-title")
        plot = screen.query_one(ForestPlot)
        assert [r.name for r in plot.rows] == [
            "arithmetic",
            "capital",
            "json-shape",
            "summary",
            "weather-tool",
        ]
        assert [r.verdict for r in plot.rows] == [
            "pass",
            "undecided",
            "undecided",
            "undecided",
            "undecided",
        ]
        line = plot.render_line(0).text
        assert line.startswith("arithmetic") and "1.00 0.85-1.00" in line and "●" in line
        await pilot.press("k")
        assert shown(screen, "#forest-title").startswith("pass@1 per case")
        assert "0.20 0.00-0.72" in plot.render_line(1).text
        await pilot.press("s")
        assert [r.name for r in plot.rows[:2]] == ["capital", "weather-tool"]  # lowest first


async def test_durations_and_tokens_per_case(app_env: Path) -> None:
    app = PasskApp(show_timing=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_results(pilot)
        screen = await press_into(pilot, "d", CostsScreen)
        table = rows(screen.query_one(TABLES))
        # capital: 1.75..2.75 s; input tokens 41..45, output 2..10 (numpy's linear percentiles).
        assert table[1] == ("capital", "5", "2.25", "2.70", "43", "45", "6", "10", "245")
        assert table[0][-5:] == ("-", "-", "-", "-", "-")  # arithmetic reported no usage


async def test_export_writes_the_format_of_the_suffix(app_env: Path, tmp_path: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_results(pilot)
        await pilot.press("x")
        assert isinstance(app.screen, ExportScreen)
        field = app.screen.query_one(Input)
        field.value = str(tmp_path / "report.pdf")
        await pilot.press("enter")
        assert "format follows the suffix" in shown(app.screen, "#export-problem")
        field.value = str(tmp_path / "report.json")
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
        written = json.loads((tmp_path / "report.json").read_text())
        assert json.dumps(written).count("weather-tool") >= 1
        assert "ev_views_demo" in json.dumps(written)


async def test_copy_the_headless_command_and_an_attempts_run_id(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        results = await open_results(pilot)
        await pilot.press("c")
        assert isinstance(app.screen, CopyScreen)
        await pilot.press("enter")
        assert app.clipboard == headless_command(results.view.settings)
        assert "--headless --agent demo --version 1" in app.clipboard
        assert "--require 0.8" in app.clipboard
        await pilot.press("down", "enter")  # the capital case
        await pilot.press("c")
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels == [
            "answer: Sydney",
            "check's reason: expected 'canberra'",
            "run id: run_11",
            "turn id: turn_11",
        ]
        await pilot.press("down", "down", "enter")
        assert app.clipboard == "run_11"


async def test_rerun_the_failing_cases_runs_only_them(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_results(pilot)
        await pilot.press("R")
        assert "Rerun the 4 cases" in str(
            app.screen.query_one("#confirm-question", Static).render()
        )
        await pilot.press("y")
        await pilot.pause()
        assert (
            app.controller.view is not None and app.controller.view.evaluation_id != "ev_views_demo"
        )
        assert app.controller.view.progress.case_names == [
            "capital",
            "json-shape",
            "summary",
            "weather-tool",
        ]
        assert (
            Path(app.controller.view.settings.cases_path)
            == data_dir() / "reruns" / "ev_views_demo-failing.jsonl"
        )
        await run_to_end(pilot)
        assert app.controller.view.status == "done"


async def test_a_view_opened_mid_run_follows_the_run(app_env: Path) -> None:
    """Opened on a live evaluation, the errors view refreshes as attempts land."""
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(scripted(), None)
        await pilot.pause()
        app.push_screen(ErrorsScreen(app.controller.view))
        await run_to_end(pilot)
        await pilot.pause(1.2)  # one refresh tick after the end
        table = rows(app.screen.query_one(TABLES))
        assert [row[:2] for row in table] == [("5x", "broken-tool x5"), ("2x", "mixed x2")]
