"""Shared set-up for the app's tests: isolated user folders, the scripted agent, waiting helpers."""

from __future__ import annotations

import asyncio
from fractions import Fraction
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import load_cases
from passk_tui.core.stats.progress import Progress
from passk_tui.store.models import StoredEvaluation
from passk_tui.tui.app.app import PasskApp
from tests.support import APP_AGENTS
from tests.support.records import record

AGENTS_DIR = APP_AGENTS


def scripted(
    cases: str = "cases.toml",
    *,
    attempts: int = 5,
    k: int = 3,
    concurrency: int = 1,
    require: Fraction | None = None,
) -> Settings:
    """Settings for the scripted local agent on one of the test cases files."""
    return Settings(
        agent="scripted",
        version=1,
        cases_path=cases,
        attempts=attempts,
        k=k,
        concurrency=concurrency,
        require=require,
        agents_path="agents.toml",
    )


def blocking() -> Settings:
    """blocking.toml, 3 attempts 2 at a time: "quick" answers; "stuck" never does and soon holds both."""
    return scripted("blocking.toml", attempts=3, concurrency=2)


async def start_mid_run(pilot: Pilot) -> Progress:
    """Start ``blocking()`` and wait until it stops mid-way: two attempts done, two in flight."""
    pilot.app.controller.start_evaluation(blocking(), None)
    progress = pilot.app.controller.view.progress
    await wait_for(pilot, lambda: progress.finished == 2 and progress.in_flight == 2)
    return progress


async def wait_for(pilot: Pilot, condition, timeout: float = 120.0) -> None:
    """Let the app run until ``condition()`` holds (fails the test after ``timeout`` seconds).

    The limit only ends a hang, never times the app: CI's two loaded cores once took more
    than 15 s for a stack check that takes 2 s here."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    while not condition():
        if loop.time() > give_up:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)


async def run_to_end(pilot: Pilot, timeout: float = 120.0) -> None:
    """Wait for the evaluation worker, then for the screens to catch up."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: app.controller.worker is not None and app.controller.worker.is_finished,
        timeout,
    )
    await pilot.pause(0.3)


def synthetic_view(
    attempts: int,
    names: tuple[str, ...] = ("steady", "flaky", "broken-tool", "mixed"),
    require: Fraction = Fraction(9, 10),
    *,
    patterns: tuple[str, ...] = ("P", "PW", "E", "PEWPE"),
    finished: int | None = None,
    version: int = 1,
):
    """A finished evaluation made in memory (no agent runs): case c's attempt a passes,
    is wrong or errors by a fixed pattern, so a 100-attempt grid is quick and stable.

    ``finished``: only the first that many attempts of each case are in (the rest pending),
    and the evaluation reads as running elsewhere."""
    from dataclasses import replace

    from passk_tui.tui.view import EvaluationView

    outcome = {"P": Outcome.PASSED, "W": Outcome.WRONG, "E": Outcome.ERRORED}
    progress = Progress(list(names), attempts, 3)
    records = []
    for c, name in enumerate(names):
        pattern = patterns[c % len(patterns)]
        for a in range(1, (attempts if finished is None else finished) + 1):
            result = outcome[pattern[(a - 1) % len(pattern)]]
            records.append(
                record(
                    c, a, result, case=name, key=f"k{c}-{a}", output="391", reason=None,
                    error=None, run_id=None, turn_id=None, started=0.0, ended=1.0, usage=None,
                )
            )  # fmt: skip
    progress.add(records)
    settings = replace(scripted(attempts=attempts, require=require), version=version)
    status = "done" if finished is None else "running"
    return EvaluationView(
        "ev_synthetic", settings, progress, None, stored_status=status, show_timing=False
    )


#: Any table of the app: the Results table draws its own lines, the others are DataTables.
TABLES = "DataTable, LineTable"


def column_keys(table) -> list[str]:
    """A table's column keys in screen order, whichever kind of table it is."""
    return [getattr(key, "value", getattr(key, "key", key)) for key in table.columns]


def column_labels(table) -> list[str]:
    """A table's headings as text, without their padding."""
    columns = table.columns.values() if isinstance(table.columns, dict) else table.columns
    return [str(c.label).strip() for c in columns]


async def fill(pilot, **fields: str) -> None:
    for name, value in fields.items():
        pilot.app.screen.query_one(f"#input-{name}", Input).value = value
    await pilot.pause()


def message(app: PasskApp, field: str) -> Static:
    return app.screen.query_one(f"#message-{field}", Static)


def stored_pair() -> tuple[StoredEvaluation, StoredEvaluation]:
    """A baseline and a candidate: steady breaks (mostly errored), flaky is fixed."""
    a = stored("ev_a", ("P", "PWW", "E", "PEWPE"), 1.0)
    b = stored("ev_b", ("PEE", "P", "E", "PEWPE"), 2.0)
    return a, b


def stored(evaluation_id: str, patterns: tuple[str, ...], created: float) -> StoredEvaluation:
    """A finished evaluation of tests/support/app_agents/cases.toml made in memory, 10 attempts a case."""
    cases = load_cases(Path("cases.toml"))
    records = []
    for c, (case, pattern) in enumerate(zip(cases, patterns, strict=True)):
        for a in range(1, 11):
            outcome = OUTCOME[pattern[(a - 1) % len(pattern)]]
            answer = (
                None
                if outcome is Outcome.ERRORED
                else ("391" if outcome is Outcome.PASSED else "390")
            )
            status = "failed" if outcome is Outcome.ERRORED else "completed"
            records.append(
                AttemptRecord(c, case.name, a, f"{evaluation_id}-{c}-{a}", outcome, status,
                              answer, None, None, None, None, 0.0, 1.0)
            )  # fmt: skip
    return StoredEvaluation(
        evaluation_id, created, created + 1, "done", None, scripted(attempts=10), cases, "", records
    )


OUTCOME = {"P": Outcome.PASSED, "W": Outcome.WRONG, "E": Outcome.ERRORED}
