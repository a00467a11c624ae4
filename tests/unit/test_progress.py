"""Live progress: rows of growing lengths, Runs in flight, and this session's rate."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from passk_tui.core.attempt import Turn, Verdict
from passk_tui.core.checks.base import Check
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.stats.progress import Cell, Progress
from tests.support.records import record, settings_for


def test_rows_grow_to_hold_later_attempts() -> None:
    progress = Progress(["a", "b"], 2, 2)
    progress.mark(1, 4, Cell.RUNNING)
    progress.add([record(0, 3)])
    assert [len(row) for row in progress.cells] == [3, 4]
    assert progress.total == 7
    assert list(progress.cells[1]) == [Cell.PENDING, Cell.PENDING, Cell.PENDING, Cell.RUNNING]
    assert progress.figures(0).n == 1


def test_in_flight_counts_runs_not_attempts_waiting_to_be_saved() -> None:
    progress = Progress(["a"], 3, 2)
    progress.mark(0, 1, Cell.RUNNING)
    progress.mark(0, 2, Cell.RETRYING)
    assert progress.in_flight == 2
    progress.run_ended(0, 1)  # its Turn is in; it is being judged and saved
    assert progress.in_flight == 1
    progress.add([record(0, 1)])
    progress.release(0, 2)
    assert progress.in_flight == 0


def test_rate_and_time_left_count_only_this_sessions_attempts() -> None:
    progress = Progress(["a"], 1000, 2)
    progress.add([record(0, a) for a in range(1, 901)])  # stored before a resume
    progress.begin()
    assert progress.rate() == 0.0 and progress.seconds_left() is None
    progress.add([record(0, 901)])
    assert progress.rate() > 0 and progress.seconds_left() is not None


class SlowCheck(Check):
    """A check that waits (off the loop) until ``release`` is set: the attempt waits to be judged."""

    def __init__(self) -> None:
        super().__init__({})
        self.release = threading.Event()
        self.entered = threading.Event()

    async def verdict(self, output: object, deadline: float, transcript: object = None) -> Verdict:
        return await asyncio.to_thread(self._held)

    def _held(self) -> Verdict:
        self.entered.set()
        self.release.wait(10)
        return Verdict(True)


class Instant:
    async def prepare(self) -> None:
        pass

    async def execute(self, attempt, deadline, notify) -> Turn:
        return Turn("completed", output="x")

    async def aclose(self) -> None:
        pass


async def test_an_attempt_being_judged_is_not_a_run_in_flight() -> None:
    check = SlowCheck()
    settings = Settings(agent="a", version=1, cases_path="x", attempts=1, k=1)
    ev = Evaluation("ev_p", [Case("a", "x", check, {"x": 1})], settings, Instant())  # type: ignore[arg-type]
    runner = asyncio.create_task(ev.run())
    await asyncio.to_thread(check.entered.wait, 10)
    assert ev.progress.in_flight == 0 and ev.progress.finished == 0
    check.release.set()
    assert await runner == "done"


def test_the_run_screens_rate_after_a_resume_counts_this_session_only() -> None:
    from passk_tui.core.stats.extent import progress_extent
    from passk_tui.tui.widgets.run_summary import pace_text

    progress = Progress(["a"], 1000, 2)
    progress.add([record(0, a) for a in range(1, 901)])
    progress.begin()
    progress.add([record(0, a) for a in range(901, 911)])
    settings = settings_for(Path("c.toml"), attempts=1000)
    text = pace_text(progress_extent(progress, settings), progress, "running", 10.0)
    assert "1.0/s" in text and "~1:30 left" in text  # 10 in 10 s; 90 left
