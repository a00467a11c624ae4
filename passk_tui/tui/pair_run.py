"""A baseline run beside its candidate in the app (``--baseline V``, or the Baseline field).

The pair is made, resumed and run by ``evaluations.pairing`` exactly as the headless
face runs it (two stored evaluations, their attempts in turn in one pool); this holds
what the app shows of it: a view per version, the comparison once it ends, and the exit
status, which is the headless one's (a regression with ``--fail-on-regression`` first,
else the candidate's gate: the baseline is what it is measured against).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from passk_tui.core.errors import ExitCode
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE, parse_exact_confidence
from passk_tui.core.render.compare_text import regression_lines
from passk_tui.tui.view import EvaluationView

if TYPE_CHECKING:
    from passk_tui.evaluations.pairing import PairedRun
    from passk_tui.store.comparison import ComparedEvaluations


@dataclass
class PairShown:
    """The running pair and its two views: A (the baseline) and B (the candidate)."""

    paired: PairedRun
    baseline: EvaluationView
    candidate: EvaluationView
    fail_on_regression: bool = False
    #: The comparison, once the pair ended and it was made.
    compared: ComparedEvaluations | None = None

    @classmethod
    def of(cls, paired: PairedRun, show_timing: bool, fail_on_regression: bool) -> PairShown:
        views = []
        for evaluation in (paired.baseline, paired.candidate):
            view = EvaluationView.running_here(evaluation)
            view.show_timing = show_timing
            views.append(view)
        baseline, candidate = views
        return cls(paired, baseline, candidate, fail_on_regression)

    def compare(self) -> ComparedEvaluations:
        """Both as stored now, compared at the candidate's ``--confidence`` (else 0.95)."""
        level = self.candidate.settings.confidence
        exact = DEFAULT_CONFIDENCE if level is None else parse_exact_confidence(repr(level))
        self.compared = self.paired.compared(exact)
        return self.compared

    def exit_status(self, candidate_status: int) -> int:
        """1 when ``--fail-on-regression`` finds a regressed case or suite (it outranks an
        undecided gate, 4), else the candidate's own status."""
        if candidate_status not in (ExitCode.OK, ExitCode.UNDECIDED):
            return candidate_status
        if (
            self.fail_on_regression
            and self.compared
            and self.compared.comparison.fails_on_regression
        ):
            return ExitCode.GATE_FAILED
        return candidate_status

    def exit_messages(self, candidate_messages: list[str]) -> list[str]:
        """The attempts neither version ran, or the candidate's gate lines and the regressions."""
        if self.candidate.status in ("running", "cancelled"):
            left = sum(
                v.progress.total - v.progress.finished for v in (self.baseline, self.candidate)
            )
            return [f"passk-tui: cancelled: {left} attempts not run (A and B)"]
        # The gate read the candidate alone: said as headless says it.
        prefix = f"passk-tui: B (version {self.candidate.settings.version}) "
        gate = [prefix + line.removeprefix("passk-tui: ") for line in candidate_messages]
        if not (self.fail_on_regression and self.compared):
            return gate
        return [
            *gate,
            *(f"passk-tui: {line}" for line in regression_lines(self.compared.comparison)),
        ]
