"""The Matrix screen: several versions from Configure run as a matrix, a cell per case and
target (symbol and colour by pass@k's band, the interval), sortable, Enter opens that case on
that target; it fits 80x24 with three targets; a resume of any target resumes them all."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from passk_tui.cli.flags import build_parser
from passk_tui.evaluations.matrix import MatrixRun
from passk_tui.tui.app import launch
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.case import CaseScreen
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.matrix.screen import MatrixScreen
from tests.support.app import run_to_end, wait_for

AGENTS = Path(__file__).parents[1] / "support" / "matrix_agents"


def form(version: str = "1,2,3", **more: str) -> dict[str, str | bool]:
    return blank_form() | {
        "agent": "calc",
        "version": version,
        "cases": str(AGENTS / "cases.toml"),
        "agents": str(AGENTS / "agents.toml"),
        "attempts": "10",
        **more,
    }


def cells(screen: MatrixScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


async def test_configure_with_three_versions_runs_a_matrix_that_fits_80x24(app_env: Path) -> None:
    app = PasskApp(form=form(require="0.5"), show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.controller.matrix is not None)
        await run_to_end(pilot)
        screen = app.screen
        assert isinstance(screen, MatrixScreen)
        rows = cells(screen)
        # drops: v1 solid, v2 and v3 below 0.5 and failing the gate: symbol, figure, interval, mark
        assert rows[1][0] == "drops"
        assert rows[1][1].startswith("● 1.00 ") and rows[1][1].endswith(" ✓")
        assert rows[1][2].startswith("○ 0.30 ") and rows[1][2].endswith(" ✗")
        assert rows[1][3].startswith("○ 0.00 0.00-")
        gates = str(screen.query_one("#matrix-gates", Static).render())
        assert "v1: gate pass" in gates and "v2: gate fail" in gates
        # Everything in view at 80 columns: the last column's cells end inside the screen.
        table = screen.query_one(DataTable)
        assert table.virtual_size.width <= 80
        # s cycles: v1 weakest first, v2, v3, the largest difference (drops: 1.00 to 0.00), file.
        orders = []
        for _ in range(5):
            await pilot.press("s")
            await pilot.pause(0.05)
            orders.append((screen.order_name, [row[0] for row in cells(screen)]))
        assert orders[0] == ("v1 weakest first", ["climbs", "steady", "drops"])
        assert orders[3] == ("largest difference first", ["drops", "climbs", "steady"])
        assert orders[4][0] == "file order"
        # Enter on v3's climbs: that case on that target.
        table.cursor_coordinate = table.cursor_coordinate._replace(row=2, column=3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, CaseScreen)
        assert app.screen.view.settings.version == 3
        assert app.screen.view.progress.case_names[app.screen.case_index] == "climbs"
    assert app.exit_status == 1  # v2 and v3 fail the gate, as headless says
    said = app.exit_messages()
    assert "passk-tui: v2 gate: drops: pass@3 0.30, 0 of 10 errored, is below --require 0.5" in said


async def test_a_cancelled_matrix_resumes_as_one(app_env: Path) -> None:
    app = PasskApp(form=form(attempts="30", concurrency="1"), show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.controller.matrix is not None)
        views = app.controller.matrix.views
        await wait_for(pilot, lambda: sum(v.progress.finished for v in views) >= 6)
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        done = [v.progress.finished for v in views]
        assert max(done) - min(done) <= 1  # one pool, in turn: a stop leaves them comparable
        assert app.exit_status == 130
        app.controller.resume(views[1].evaluation_id)  # any target resumes them all
        assert app.controller.matrix is not None
        assert [v.evaluation_id for v in app.controller.matrix.views] == [
            v.evaluation_id for v in views
        ]
        await run_to_end(pilot)
        assert [v.progress.finished for v in app.controller.matrix.views] == [90, 90, 90]
        # History names the group beside each target, and m opens its matrix.
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.pause(0.3)
        row = [str(c) for c in app.screen.query_one(DataTable).get_row_at(0)]
        assert any(f"group {views[0].evaluation_id}" in cell for cell in row)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, MatrixScreen))
        assert [r.finished for r in (o.progress for o in app.screen.reading.readings)] == [90] * 3


def test_flags_with_several_versions_start_a_matrix(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[object] = []
    monkeypatch.setattr(PasskApp, "run", lambda self, **kw: started.append(self._start))
    argv = ["--agent", "calc", "--version", "1,2", "--cases", str(AGENTS / "cases.toml")]
    argv += ["--agents", str(AGENTS / "agents.toml"), "--attempts", "1"]
    args: argparse.Namespace = build_parser().parse_args(argv)
    launch.run_app(args, {})
    (start,) = started
    assert isinstance(start, MatrixRun)
    assert [m.settings.version for m in start.members] == [1, 2]
    for member in start.members:
        member.release()


def test_the_app_resumes_a_matrix_only_with_its_own_targets(
    app_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from passk_tui.evaluations.matrix import new_matrix
    from passk_tui.evaluations.settings_text import validate

    texts = {"agent": "calc", "version": "1,2", "cases": str(AGENTS / "cases.toml")}
    check = validate({**texts, "agents": str(AGENTS / "agents.toml"), "attempts": "1"})
    assert check.settings is not None
    made = new_matrix(check.settings, check.targets, None)
    for member in made.members:
        member.release()
    started: list[object] = []
    monkeypatch.setattr(PasskApp, "run", lambda self, **kw: started.append(self._start))
    other = build_parser().parse_args(["--resume", made.group_id, "--version", "1,3"])
    assert launch.run_app(other, {}) == 2 and started == []
    assert "the targets v1, v3 would change what is measured" in capsys.readouterr().err
    same = build_parser().parse_args(["--resume", made.members[1].evaluation_id])
    launch.run_app(same, {})
    (start,) = started
    assert isinstance(start, MatrixRun) and start.group_id == made.group_id
    for member in start.members:
        member.release()
