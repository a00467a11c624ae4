"""The live state of an evaluation, kept compact so 100,000 cells cost little.

The engine writes it; front ends read it on their own schedule (a timer in
the app, a periodic line in the CLI) instead of reacting to every event.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import IntEnum

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.stats.rates.figures import CaseFigures


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


#: A row of cells as outcomes by attempt number (1 a pass, 0 not), unfinished cells dropped.
_ORDER = bytes(int(cell == Cell.PASSED) for cell in range(256))
_UNFINISHED = bytes((Cell.PENDING, Cell.RUNNING, Cell.RETRYING))


class Progress:
    """Per case: a cell per attempt, the outcome counts and the finished records.

    Rows start ``attempts`` long and grow when a policy hands out (or a store
    holds) an attempt past their end, so cases may differ in length; ``total``
    is the sum of the rows, the attempts known of so far.
    """

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
        #: The attempts whose Run is under way (started, or waiting to resend): not those
        #: whose Turn is in and only waits to be judged and saved.
        self._running: set[tuple[int, int]] = set()
        self.started_at = time.monotonic()
        self._finished_at_start = 0
        #: Bumped on every change, so a face can skip a repaint when nothing moved.
        self.version = 0
        #: Adaptive: why each case that stopped getting attempts stopped (the policy's own,
        #: live); a case not in it is still sampled. Empty for a fixed n.
        self.stop_reasons: Mapping[int, StopReason] = {}
        #: With a Run budget: the most attempts still to finish under it (the policy's own,
        #: ``BudgetedPolicy.runs_bound``, asked live); None without one.
        self.runs_bound: Callable[[], int | None] = lambda: None

    @property
    def in_flight(self) -> int:
        """Attempts whose Run is in flight."""
        return len(self._running)

    def _row(self, case_index: int, attempt: int) -> bytearray:
        """The case's row, grown with pending cells to hold ``attempt``."""
        row = self.cells[case_index]
        if attempt > len(row):
            self.total += attempt - len(row)
            row.extend(bytes(attempt - len(row)))
        return row

    def begin(self) -> None:
        """This session starts now: the rate and time left count only what finishes from here."""
        self.started_at = time.monotonic()
        self._finished_at_start = self.finished

    def mark(self, case_index: int, attempt: int, cell: Cell) -> None:
        """Set an unfinished attempt's cell: running or waiting to retry (in flight), or pending."""
        self._row(case_index, attempt)[attempt - 1] = cell
        if cell == Cell.PENDING:
            self._running.discard((case_index, attempt))
        else:
            self._running.add((case_index, attempt))
        self.version += 1

    def run_ended(self, case_index: int, attempt: int) -> None:
        """The attempt's Run is over (its Turn is in, to be judged and saved): no longer in flight."""
        self._running.discard((case_index, attempt))
        self.version += 1

    def add(self, records: Iterable[AttemptRecord]) -> None:
        """Count finished attempts (live, or loaded from the store on resume)."""
        for record in records:
            i = record.case_index
            self._running.discard((i, record.attempt))
            self._row(i, record.attempt)[record.attempt - 1] = CELL_OF_OUTCOME[record.outcome]
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
        """An attempt stopped without a record (withdrawn, or the evaluation failed): pending."""
        self.mark(case_index, attempt, Cell.PENDING)

    @property
    def planned_reached(self) -> bool:
        """Every attempt known of is in: each case has what was planned for it (so far)."""
        return self.finished >= self.total

    def nodes(self) -> dict[str, int]:
        """The attempts finished on each Ray node (``--executor ray``), nodes in the order
        they first finished one; none for attempts run here or on the stack."""
        counts: dict[str, int] = {}
        for row in self.records:
            for record in row:
                if record.node is not None:
                    counts[record.node] = counts.get(record.node, 0) + 1
        return counts

    def figures(self, case_index: int) -> CaseFigures:
        """The case's figures over the attempts finished so far."""
        p, w, e = self.passed[case_index], self.wrong[case_index], self.errored[case_index]
        row = self.cells[case_index]
        order = bytes(row.translate(_ORDER, _UNFINISHED))
        return CaseFigures(self.case_names[case_index], p + w + e, p, w, e, self.k, len(row), order)

    def all_figures(self) -> list[CaseFigures]:
        return [self.figures(i) for i in range(len(self.case_names))]

    def elapsed(self) -> float:
        return time.monotonic() - self.started_at

    @property
    def finished_here(self) -> int:
        """Attempts finished in this session: a resume's stored ones not counted."""
        return self.finished - self._finished_at_start

    def rate(self) -> float:
        """Attempts finished per second in this session (a resume's stored ones not counted)."""
        elapsed = self.elapsed()
        return self.finished_here / elapsed if elapsed > 0 else 0.0

    def seconds_left(self) -> float | None:
        """At this session's rate, the seconds until every known attempt is in; None: no rate yet."""
        rate = self.rate()
        return (self.total - self.finished) / rate if rate > 0 else None
