"""What a whole evaluation amounted to, as counts (never a mean across cases): the Results header."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.stats.rates.figures import CaseFigures


@dataclass(frozen=True, slots=True)
class EvaluationTotals:
    """Attempt outcomes summed over the cases, and how many cases all passed or missed the gate."""

    cases: int
    passed: int
    wrong: int
    errored: int
    cases_all_passed: int
    #: Cases with fewer attempts finished than planned (a live, cancelled or interrupted run).
    cases_unfinished: int
    #: Cases whose pass@k is under the gate; None without a gate.
    cases_under_gate: int | None

    @property
    def finished(self) -> int:
        return self.passed + self.wrong + self.errored


def evaluation_totals(
    figures: Sequence[CaseFigures], planned: Sequence[int], require: Fraction | None
) -> EvaluationTotals:
    """Counts over ``figures``; ``planned`` is each case's planned attempts (rows may differ)."""
    return EvaluationTotals(
        cases=len(figures),
        passed=sum(f.passed for f in figures),
        wrong=sum(f.wrong for f in figures),
        errored=sum(f.errored for f in figures),
        cases_all_passed=sum(
            1 for f, n in zip(figures, planned, strict=True) if f.n == n and f.all_passed
        ),
        cases_unfinished=sum(1 for f, n in zip(figures, planned, strict=True) if f.n < n),
        cases_under_gate=None if require is None else len(below_gate(figures, require)),
    )


def below_gate(figures: Sequence[CaseFigures], require: Fraction) -> list[CaseFigures]:
    """The cases whose exact pass@k is under the point gate (0.899 fails 0.9); undefined ones are not."""
    return [f for f in figures if f.pass_at_k is not None and f.pass_at_k < require]
