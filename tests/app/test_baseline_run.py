"""`--baseline V` in the app: both versions run in turn, both grids show, and it ends on Compare.

The live tests run the scripted agent as two versions (the same program: what they answer
is not the point, that both run and are compared is); the snapshots are of two evaluations
made in memory.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import pytest
from textual.pilot import Pilot

from passk_tui.cli.flags import build_parser
from passk_tui.evaluations.pairing import PairedRun, new_pair
from passk_tui.tui.app import launch
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.pair_run import PairShown
from passk_tui.tui.screens.compare.screen import CompareScreen
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.widgets.attempts_grid import AttemptsGrid
from tests.support.app import (
    AGENTS_DIR,
    run_to_end,
    scripted,
    stored_pair,
    synthetic_view,
    wait_for,
)

#: Two versions of the scripted agent (its own agents file has one).
TWO_VERSIONS = """\
[agents.scripted.versions.1]
command = ["python3", "{script}"]

[agents.scripted.versions.2]
command = ["python3", "{script}"]
"""


@pytest.fixture
def two_versions(app_env: Path) -> Path:
    agents = app_env / "two-versions.toml"
    agents.write_text(TWO_VERSIONS.format(script=AGENTS_DIR / "scripted.py"))
    return agents


def pair_settings(agents: Path):
    return replace(scripted(attempts=3), version=2, agents_path=str(agents))


async def test_a_pair_from_flags_runs_both_then_compares(two_versions: Path) -> None:
    paired = new_pair(pair_settings(two_versions), 1, None)
    app = PasskApp(start=paired, show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.1)
        run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        grids = list(run.query(AttemptsGrid))
        assert [g.progress for g in grids] == [
            paired.baseline.progress,
            paired.candidate.progress,
        ]
        await run_to_end(pilot)
        assert isinstance(app.screen, CompareScreen)
        compared = app.screen.compared
        assert (compared.baseline.settings.version, compared.candidate.settings.version) == (1, 2)
        assert all(e.progress.finished == e.progress.total for e in paired.running.evaluations)
    assert app.exit_status == 0


async def test_the_baseline_field_runs_a_pair(two_versions: Path) -> None:
    form = blank_form() | {
        "agent": "scripted",
        "version": "2",
        "baseline": "1",
        "cases": "cases.toml",
        "attempts": "2",
        "agents": str(two_versions),
    }
    app = PasskApp(form=form, show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.controller.pair is not None)
        await run_to_end(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert app.screen.compared.baseline.settings.version == 1


async def test_cancelling_a_pair_stops_both(two_versions: Path) -> None:
    settings = replace(pair_settings(two_versions), cases_path="blocking.toml", concurrency=2)
    app = PasskApp(start=new_pair(settings, 1, None), show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.controller.pair is not None
        views = (app.controller.pair.baseline, app.controller.pair.candidate)
        await wait_for(pilot, lambda: sum(v.progress.in_flight for v in views) == 2)
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        assert [v.status for v in views] == ["cancelled", "cancelled"]
        assert isinstance(app.screen, CompareScreen)  # what finished, compared
        assert app.exit_status == 130
        assert app.exit_messages()[0].endswith("attempts not run (A and B)")
        # Resuming either (as History's u does) resumes both.
        ids = [v.evaluation_id for v in views]
        app.controller.resume(ids[0])
        assert app.controller.pair is not None and app.controller.running
        assert [
            app.controller.pair.baseline.evaluation_id,
            app.controller.pair.candidate.evaluation_id,
        ] == ids
        app.controller.cancel_evaluation()
        await run_to_end(pilot)


def test_flags_with_a_baseline_start_a_pair(
    two_versions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`passk-tui --agent scripted --version 2 --baseline 1 --cases …` starts both at once."""
    started: list[object] = []
    monkeypatch.setattr(PasskApp, "run", lambda self, **kw: started.append(self._start))
    argv = ["--agent", "scripted", "--version", "2", "--baseline", "1"]
    argv += ["--cases", "cases.toml", "--agents", str(two_versions), "--attempts", "1"]
    args: argparse.Namespace = build_parser().parse_args(argv)
    launch.run_app(args, {})
    (start,) = started
    assert isinstance(start, PairedRun)
    assert (start.baseline.settings.version, start.candidate.settings.version) == (1, 2)
    start.baseline.release()
    start.candidate.release()


def test_a_regression_fails_the_pair_only_with_fail_on_regression(app_env: Path) -> None:
    """As headless: 1 and the regressed case named; else the candidate's own status."""
    from passk_tui.store.comparison import compare_stored

    a, b = stored_pair()
    views = (synthetic_view(5), synthetic_view(5, version=2))
    for fail, status in ((True, 1), (False, 0)):
        shown = PairShown(None, *views, fail_on_regression=fail)  # type: ignore[arg-type]
        shown.compared = compare_stored(a, b)
        assert shown.exit_status(0) == status
        assert shown.exit_status(3) == 3  # could not run: that says more
        said = shown.exit_messages(["passk-tui: gate: steady: pass@3 0.50 is below 0.9"])
        assert said[0] == "passk-tui: B (version 2) gate: steady: pass@3 0.50 is below 0.9"
        assert any(line.startswith("passk-tui: regressed: steady") for line in said) is fail


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_snapshot_of_a_pair_mid_run(app_env: Path, snap_compare, size) -> None:
    """A's grid above B's, each with its counts; the pace line counts both."""
    baseline = synthetic_view(5, finished=3)
    candidate = synthetic_view(5, patterns=("PW", "P", "PE", "W"), finished=2, version=2)
    app = PasskApp(show_timing=False)

    async def run_before(pilot: Pilot) -> None:
        await app.push_screen(RunScreen(candidate, baseline=baseline))
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
