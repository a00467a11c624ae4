"""The grid's window of attempts follows a live run's frontier and stays where the user puts it."""

from __future__ import annotations

from passk_tui.core.stats.progress import Cell, Progress
from passk_tui.tui.widgets.cells_window import CellsWindow
from tests.support.records import record


def _run_at(progress: Progress, attempt: int) -> None:
    """Every attempt of both cases up to ``attempt`` finished, the next in flight."""
    for case in (0, 1):
        done = len(progress.records[case])
        progress.add(record(case, a) for a in range(done + 1, attempt + 1))
        progress.mark(case, attempt + 1, Cell.RUNNING)


def test_a_live_window_follows_the_frontier_until_moved_off_it() -> None:
    progress = Progress(["a", "b"], 100, 3)
    live = [True]
    window = CellsWindow(progress, lambda: live[0])
    _run_at(progress, 30)
    assert window.shown(8) == (24, 31)  # the attempt in flight is the last one shown
    _run_at(progress, 60)
    assert window.shown(8) == (54, 61)
    window.shift(-1, 8)  # earlier: off the frontier, it stays put
    _run_at(progress, 70)
    assert window.shown(8) == (50, 57)
    for _ in range(6):
        window.shift(1, 8)
    assert window.following and window.shown(8) == (64, 71)
    live[0] = False  # the run ended: the window stays where it last was
    assert window.shown(8) == (64, 71)


def test_a_stored_evaluation_opens_at_its_first_attempts() -> None:
    progress = Progress(["a"], 100, 3)
    progress.add(record(0, a) for a in range(1, 101))
    window = CellsWindow(progress, lambda: False)
    assert window.shown(8) == (1, 8)
    window.shift(1, 8)
    assert window.shown(8) == (5, 12)
