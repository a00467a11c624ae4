"""The app's run ends with everything its evaluation holds closed: the agent's target, its
judges and its simulated users, as the headless run closes them (``Interleaved.aclose``).

Before: the app closed the agent's target alone, so a judge's or a simulated user's
connections and processes stayed open until the process exited.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from passk_tui.core.run.engine import Evaluation
from passk_tui.evaluations.new import new_evaluation
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.early_start import start_early, stop_unshown
from tests.support.app import blocking, run_to_end, scripted


class Held:
    """A judges' or simulated users' stand-in: asked for nothing (the cases use neither), it
    counts how often it was prepared and closed."""

    def __init__(self) -> None:
        self.prepared = 0
        self.closed = 0

    async def prepare(self) -> None:
        self.prepared += 1

    async def aclose(self) -> None:
        self.closed += 1


def holding(evaluation: Evaluation) -> tuple[Held, Held]:
    judges, users = Held(), Held()
    evaluation.judges = judges  # type: ignore[assignment]  # only prepare and aclose are used
    evaluation.users = users  # type: ignore[assignment]
    return judges, users


@pytest.mark.parametrize("early", [False, True], ids=["started-by-the-app", "begun-before-it"])
async def test_the_apps_run_closes_its_judges_and_simulated_users(
    app_env: Path, early: bool
) -> None:
    evaluation = new_evaluation(scripted(attempts=2), None)
    judges, users = holding(evaluation)
    running = await start_early(evaluation) if early else None
    app = PasskApp(start=evaluation, running=running, show_timing=False)
    async with app.run_test() as pilot:
        await run_to_end(pilot)
    assert evaluation.status == "done"
    assert (judges.prepared, judges.closed) == (1, 1)
    assert (users.prepared, users.closed) == (1, 1)


def test_a_run_the_app_never_took_over_closes_its_judges_and_simulated_users(
    app_env: Path,
) -> None:
    """The app could not start (``stop_unshown``): the run is withdrawn, and all it held closed
    (blocking.toml: its "stuck" case keeps the run going until it is withdrawn)."""
    evaluation = new_evaluation(blocking(), None)
    judges, users = holding(evaluation)
    loop = asyncio.new_event_loop()
    try:
        running = loop.run_until_complete(start_early(evaluation))
        stop_unshown(loop, evaluation, running)
    finally:
        loop.close()
    assert evaluation.status == "cancelled"
    assert (judges.closed, users.closed) == (1, 1)
