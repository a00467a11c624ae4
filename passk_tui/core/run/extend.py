"""Extending an evaluation with more attempts: which cases want them, how many Runs it costs.

The seed's advice is to put the cases whose pass@k is neither 0 nor 1 through
more attempts; the confident gate adds those it could not decide. Extending to
N attempts per case runs, for each case, every attempt from 1 to N that has no
record yet (a resume's gaps included), so that is what the Runs count says.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from passk_tui.core.errors import InputError
from passk_tui.core.run.settings import parse_whole_number
from passk_tui.core.stats.figures import CaseFigures
from passk_tui.core.stats.gate import Reading


def worth_more(reading: Reading) -> list[int]:
    """The cases (indices) more attempts would tell most about: undecided by the gate, or flaky."""
    return [
        index
        for index, case in enumerate(reading.cases)
        if case.verdict == "undecided" or 0 < case.figures.passed < case.figures.n
    ]


def extension_runs(
    figures: Sequence[CaseFigures], attempts: int, cases: Iterable[int] | None = None
) -> int:
    """The Runs that bring ``cases`` (default: every case) to ``attempts`` recorded attempts each."""
    chosen = range(len(figures)) if cases is None else cases
    return sum(max(0, attempts - figures[i].n) for i in chosen)


def parse_more_attempts(text: str, stored: int) -> int:
    """The new attempts per case: a whole number above the ``stored`` attempts (fewer: refused)."""
    value = parse_whole_number(text)
    if value <= stored:
        raise InputError(f"must be more than the {stored} attempts per case it has, got {value}")
    return value
