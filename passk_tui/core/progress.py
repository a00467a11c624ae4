"""The live state of an evaluation, kept compact so 100,000 cells cost little.

The engine writes it; front ends read it on their own schedule (a timer in
the app, a periodic line in the CLI) instead of reacting to every event.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from enum import IntEnum

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.figures import CaseFigures


class Cell(IntEnum):
    """The state of one attempt's cell in the grid."""

    PENDING = 0
    RUNNING = 1
    RETRYING = 2
    PASSED = 3
    WRONG = 4
    ERRORED = 5


CELL_OF_OUTCOME = {
    Outcome.PASSED: Cell.PASSED,
    Outcome.WRONG: Cell.WRONG,
    Outcome.ERRORED: Cell.ERRORED,
}


class Progress:
    """Per case: a cell per attempt, the outcome counts and the finished records."""

    def __init__(self, case_names: Sequence[str], attempts: int, k: int) -> None:
        self.case_names = list(case_names)
        self.attempts = attempts
        self.k = k
        self.cells = [bytearray(attempts) for _ in case_names]
        self.passed = [0] * len(case_names)
        self.wrong = [0] * len(case_names)
        self.errored = [0] * len(case_names)
        self.records: list[list[AttemptRecord]] = [[] for _ in case_names]
        self.total = len(case_names) * attempts
        self.finished = 0
        self.in_flight = 0
        self.started_at = time.monotonic()
        #: Bumped on every change, so a face can skip a repaint when nothing moved.
        self.version = 0

    def mark(self, case_index: int, attempt: int, cell: Cell) -> None:
        """Set an unfinished attempt's cell (running or waiting to retry)."""
        row = self.cells[case_index]
        if row[attempt - 1] == Cell.PENDING and cell != Cell.PENDING:
            self.in_flight += 1
        elif cell == Cell.PENDING and row[attempt - 1] != Cell.PENDING:
            self.in_flight -= 1
        row[attempt - 1] = cell
        self.version += 1

    def add(self, records: Iterable[AttemptRecord]) -> None:
        """Count finished attempts (live, or loaded from the store on resume)."""
        for record in records:
            i = record.case_index
            row = self.cells[i]
            if row[record.attempt - 1] in (Cell.RUNNING, Cell.RETRYING):
                self.in_flight -= 1
            row[record.attempt - 1] = CELL_OF_OUTCOME[record.outcome]
            if record.outcome is Outcome.PASSED:
                self.passed[i] += 1
            elif record.outcome is Outcome.WRONG:
                self.wrong[i] += 1
            else:
                self.errored[i] += 1
            self.records[i].append(record)
            self.finished += 1
        self.version += 1

    def release(self, case_index: int, attempt: int) -> None:
        """An attempt stopped without a record (the evaluation failed): back to pending."""
        self.mark(case_index, attempt, Cell.PENDING)

    def figures(self, case_index: int) -> CaseFigures:
        """The case's figures over the attempts finished so far."""
        p, w, e = self.passed[case_index], self.wrong[case_index], self.errored[case_index]
        return CaseFigures(self.case_names[case_index], p + w + e, p, w, e, self.k, self.attempts)

    def all_figures(self) -> list[CaseFigures]:
        return [self.figures(i) for i in range(len(self.case_names))]

    def elapsed(self) -> float:
        return time.monotonic() - self.started_at
