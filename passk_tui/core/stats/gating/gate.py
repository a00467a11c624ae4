"""The gate, read once for every face: each case's verdict, its interval, and the exit status.

Two gates share one shape. The seed's point gate (``--require`` alone) fails a
case whose exact pass@k is below X. The confident gate (``--require`` with
``--confidence``) reads the pass@k interval: ``pass`` when its low end is at or
above X, ``fail`` when its high end is below, ``undecided`` otherwise, so a
verdict it gives is wrong with chance at most (1-C)/2 per case; with
``--family-wise`` each case is read at the level that makes the promise the
whole suite's (``core.stats.gating.family_wise``). A case whose pass@k is undefined
(fewer than k attempts) is ``undecided`` under either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.errors import ExitCode
from passk_tui.core.stats.gating.family_wise import case_level
from passk_tui.core.stats.rates.figures import CaseFigures, FigureIntervals
from passk_tui.core.stats.rates.intervals import (
    CLOPPER_PEARSON,
    DEFAULT_CONFIDENCE,
    GateVerdict,
    IntervalMethod,
    gate_verdict,
)
from passk_tui.core.text.figure_text import (
    level_text,
)


@dataclass(frozen=True, slots=True)
class CaseReading:
    """One case: its figures, their intervals, and the gate's verdict (None with no gate)."""

    figures: CaseFigures
    intervals: FigureIntervals
    verdict: GateVerdict | None


@dataclass(frozen=True, slots=True)
class Reading:
    """Every case's figures read at one level by one method, and the gate's verdicts on them.

    ``confident`` says whether the gate reads intervals (``--confidence`` given)
    or is the seed's point gate; ``level`` is the intervals' level either way
    (the default 0.95 where none was given): each case's, which ``family_wise``
    makes 1-(1-C)/M for the suite's promise ``promise`` (C).
    """

    cases: tuple[CaseReading, ...]
    k: int
    require: Fraction | None
    confident: bool
    level: float
    method: IntervalMethod
    family_wise: bool = False
    promise: float = DEFAULT_CONFIDENCE
    suite_size: int = 0

    @property
    def failing(self) -> list[CaseReading]:
        return [c for c in self.cases if c.verdict == "fail"]

    @property
    def undecided(self) -> list[CaseReading]:
        return [c for c in self.cases if c.verdict == "undecided"]

    @property
    def decided(self) -> int:
        """Cases with a pass or fail verdict (what History counts)."""
        return sum(c.verdict in ("pass", "fail") for c in self.cases)

    @property
    def exit_code(self) -> int:
        """1 when any case fails; with the confident gate, else 4 when any is undecided; else 0."""
        if self.failing:
            return ExitCode.GATE_FAILED
        if self.confident and self.undecided:
            return ExitCode.UNDECIDED
        return ExitCode.OK

    @property
    def gate_kind(self) -> str:
        """Which gate gave the verdicts: ``point``, ``confident``, or ``none``."""
        if self.require is None:
            return "none"
        return "confident" if self.confident else "point"

    @property
    def ci_header(self) -> str:
        """The interval column's header: ``pass@3 95% CI``."""
        return f"pass@{self.k} {level_text(self.level)} CI"


def read(
    figures: Sequence[CaseFigures],
    require: Fraction | None,
    confidence: float | None = None,
    method: IntervalMethod = CLOPPER_PEARSON,
    family_wise: bool = False,
    suite_size: int | None = None,
) -> Reading:
    """Read every case's intervals and verdict; ``confidence`` None keeps the seed's point gate.

    ``family_wise``: ``confidence`` is the whole suite's promise, each case read at its share
    of the ``suite_size`` cases (default: the ``figures`` given; one case read alone gives it).
    """
    promise = DEFAULT_CONFIDENCE if confidence is None else confidence
    family_wise = family_wise and confidence is not None and require is not None
    size = len(figures) if suite_size is None else suite_size
    level = case_level(promise, size, family_wise)
    k = figures[0].k if figures else 1
    cases = []
    for f in figures:
        intervals = f.intervals(level, method)
        cases.append(CaseReading(f, intervals, _verdict(f, intervals, require, confidence)))
    confident = confidence is not None
    return Reading(tuple(cases), k, require, confident, level, method, family_wise, promise, size)


def _verdict(
    f: CaseFigures, intervals: FigureIntervals, require: Fraction | None, confidence: float | None
) -> GateVerdict | None:
    if require is None:
        return None
    if f.pass_at_k is None or intervals.pass_at_k is None:
        return "undecided"
    if confidence is not None:
        return gate_verdict(intervals.pass_at_k, require)
    return "fail" if f.pass_at_k < require else "pass"
