"""An in-process double of the Target protocol, a sink that keeps the events, small cases and settings."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from passk_tui.core.attempt import AttemptRecord, Turn
from passk_tui.core.checks.kinds import compile_check
from passk_tui.core.errors import RunError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.core.run.target import LEAVE_RUNNING, RetryNotice


class ListSink:
    def __init__(self) -> None:
        self.rows: list[AttemptRecord] = []
        self.writes = 0
        self.starts = 0
        #: The keys of the attempts kept as in flight, not yet written.
        self.in_flight: set[str] = set()

    def start(self, attempts: Sequence[PlannedAttempt]) -> None:
        self.starts += 1
        self.in_flight.update(a.key for a in attempts)

    def write(self, records: Sequence[AttemptRecord]) -> None:
        self.writes += 1
        self.rows.extend(records)
        self.in_flight.difference_update(r.key for r in records)


class ScriptedTarget:
    """Answers each case's input after ``delay``; ``hang`` never answers; ``fail_on`` raises RunError."""

    def __init__(self, delay: float = 0.0, fail_on: int | None = None) -> None:
        self.delay = delay
        self.fail_on = fail_on
        self.calls = 0
        self.cancelled: list[str] = []
        self.left_running = 0

    async def prepare(self) -> None:
        pass

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        self.calls += 1
        if self.fail_on is not None and self.calls >= self.fail_on:
            raise RunError("stack refused the key (401)")
        try:
            if attempt.case.input == "retry":
                notify("503 unavailable", 0.01)
                await asyncio.sleep(0.01)
            if attempt.case.input == "hang":
                await asyncio.sleep(3600)
            await asyncio.sleep(self.delay)
        except asyncio.CancelledError as exc:
            self.cancelled.append(attempt.key)
            self.left_running += exc.args == (LEAVE_RUNNING,)
            raise
        return Turn("completed", output=attempt.case.input, run_id=f"run_{attempt.key}")

    async def aclose(self) -> None:
        pass


def case(name: str, answer: str, expect: str) -> Case:
    spec = {"equals": expect}
    return Case(name, answer, compile_check(spec, name, base_dir=Path(".")), spec)


def settings(**kw: object) -> Settings:
    base = {"agent": "a", "version": 1, "cases_path": "x.toml", "attempts": 3, "k": 2}
    return Settings(**(base | kw))  # type: ignore[arg-type]
