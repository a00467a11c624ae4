"""The Run screen of an evaluation on a Ray cluster: its footer names each node and how
many attempts it ran; a run here has no such line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from passk_tui.core.stats.progress import Progress
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.run_summary import LiveLine
from tests.support.app import scripted, synthetic_view
from tests.support.records import record

NODES = ("a" * 56, "b" * 56)


def on_ray(finished: int) -> EvaluationView:
    """Two cases of 4 attempts run on a cluster: the first ``finished`` of each are in,
    odd attempts on the first node, even ones on the second."""
    progress = Progress(["one", "two"], 4, 2)
    progress.add(
        record(c, a, node=NODES[(a - 1) % 2], key=f"k{c}-{a}")
        for c in range(2)
        for a in range(1, finished + 1)
    )
    settings = replace(scripted(attempts=4), executor="ray")
    return EvaluationView("ev_ray", settings, progress, None, stored_status="running")


async def footer(app: PasskApp, pilot, view: EvaluationView) -> str | None:
    await app.push_screen(RunScreen(view))
    await pilot.pause(0.3)
    found = app.screen.query("#run-nodes")
    return str(found.first(LiveLine).text) if found else None


async def test_the_footer_counts_the_attempts_each_node_ran(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        said = await footer(app, pilot, on_ray(3))
    assert said == "Ray nodes (2), attempts each: aaaaaaaaaaaa 4 · bbbbbbbbbbbb 2"


async def test_before_any_attempt_and_when_run_here(app_env: Path) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await footer(app, pilot, on_ray(0)) == "Ray nodes: none has finished an attempt yet"
        assert await footer(app, pilot, synthetic_view(3)) is None
