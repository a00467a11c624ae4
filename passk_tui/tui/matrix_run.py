"""A matrix run in the app (``--version 1,2,3``, or several versions in Configure).

The matrix is made, resumed and run by ``evaluations.matrix`` exactly as the headless
face runs it; this holds what the app shows of it: a view per target (for each one's
Case screen), the Matrix screen's reading from the store, and the exit status, which
is the headless one's (every target's gate; ``--fail-on-regression`` against the first).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from passk_tui.core.errors import ExitCode
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE, parse_exact_confidence
from passk_tui.tui.view import EvaluationView

if TYPE_CHECKING:
    from passk_tui.evaluations.matrix import MatrixRun
    from passk_tui.evaluations.matrix_reading import MatrixReading


@dataclass
class MatrixShown:
    """The running matrix and a view per target, in order."""

    matrix: MatrixRun
    views: list[EvaluationView]
    fail_on_regression: bool = False

    @classmethod
    def of(cls, matrix: MatrixRun, show_timing: bool, fail_on_regression: bool) -> MatrixShown:
        views = []
        for member in matrix.members:
            view = EvaluationView.running_here(member)
            view.show_timing = show_timing
            views.append(view)
        return cls(matrix, views, fail_on_regression)

    @property
    def level(self) -> Fraction:
        """The comparison's level: the first target's ``--confidence``, else 0.95."""
        level = self.views[0].settings.confidence
        return DEFAULT_CONFIDENCE if level is None else parse_exact_confidence(repr(level))

    def reading(self) -> MatrixReading:
        """The matrix as stored now."""
        return self.matrix.reading(self.level)

    def exit_status(self, first_status: int) -> int:
        """A finished matrix: every target's gate and, asked, a regression against the first;
        else (stopped, failed, could not run) the first target's status says it."""
        if first_status not in (ExitCode.OK, ExitCode.UNDECIDED, ExitCode.GATE_FAILED):
            return first_status
        return self.reading().exit_code(self.fail_on_regression)

    def exit_messages(self, first_messages: list[str]) -> list[str]:
        """What was not run, or every target's gate lines and the regressions."""
        if self.views[0].status in ("running", "cancelled", "failed"):
            return first_messages
        reading = self.reading()
        lines = reading.gate_lines()
        if self.fail_on_regression:
            lines += reading.regression_lines()
        return [f"passk-tui: {line}" for line in lines]
