"""EvaluationReading: made once per change of a live evaluation, the same of a stored one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.evaluations.reading import reading_of
from tests.support.reports import evaluation, record


def test_a_live_reading_is_kept_until_its_progress_changes() -> None:
    stored = evaluation(2, 4, lambda c, a: Outcome.PASSED if a < 4 else Outcome.WRONG)
    progress = stored.progress()
    live: Any = SimpleNamespace(
        evaluation_id=stored.id, settings=stored.settings, progress=progress, status_reason=None
    )
    first = reading_of(live)
    assert reading_of(live) is first  # asked again on the timer: not made again
    assert first.table() == reading_of(stored).table()  # live and stored read alike
    progress.add([record(0, 5, Outcome.WRONG)])
    again = reading_of(live)
    assert again is not first
    assert [f.passed for f in again.figures] == [3, 3] and again.figures[0].n == 5


def test_the_gate_in_one_word() -> None:
    passing = evaluation(2, 4)
    assert (reading_of(passing).gate, reading_of(passing).exit_code) == (
        "pass",
        0,
    )
    failing = evaluation(2, 4, lambda c, a: Outcome.WRONG)
    assert (reading_of(failing).gate, reading_of(failing).exit_code) == (
        "fail",
        1,
    )
