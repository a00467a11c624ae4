"""The gate, read once for every face: each case's verdict, its interval, and the exit status.

Two gates share one shape. The seed's point gate (``--require`` alone) fails a
case whose exact pass@k is below X. The confident gate (``--require`` with
``--confidence``) reads the pass@k interval: ``pass`` when its low end is at or
above X, ``fail`` when its high end is below, ``undecided`` otherwise, so a
verdict it gives is wrong with chance at most (1-C)/2 per case. A case whose
pass@k is undefined (fewer than k attempts) is ``undecided`` under either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.errors import ExitCode
from passk_tui.core.stats.figures import CaseFigures, FigureIntervals, two_decimals
from passk_tui.core.stats.intervals import (
    CLOPPER_PEARSON,
    DEFAULT_CONFIDENCE,
    GateVerdict,
    IntervalMethod,
    gate_verdict,
    interval_text,
    level_text,
)

#: The confident gate in one line, for --help and the Configure screen's confidence field.
CONFIDENT_GATE_MEANING = (
    "with --require X the gate reads the pass@k interval: pass when it lies wholly at or above X, "
    "fail when wholly below, else undecided (exit 4: more attempts would settle it)"
)

#: The same in a few words, for a form field's hint.
CONFIDENT_GATE_SHORT = "the gate reads intervals: pass, fail, undecided"

#: The exit status of a gate that held, failed, or (confident gate only) could not decide.


def gate_text(require: Fraction) -> str:
    """The gate as a user writes it (0.9), not as the fraction it is compared as (9/10)."""
    return f"{float(require):g}"


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
    (the default 0.95 where none was given).
    """

    cases: tuple[CaseReading, ...]
    k: int
    require: Fraction | None
    confident: bool
    level: float
    method: IntervalMethod

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
) -> Reading:
    """Read every case's intervals and verdict; ``confidence`` None keeps the seed's point gate."""
    level = DEFAULT_CONFIDENCE if confidence is None else confidence
    k = figures[0].k if figures else 1
    cases = []
    for f in figures:
        intervals = f.intervals(level, method)
        cases.append(CaseReading(f, intervals, _verdict(f, intervals, require, confidence)))
    return Reading(tuple(cases), k, require, confidence is not None, level, method)


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


def gate_lines(reading: Reading, shown: str | None = None) -> list[str]:
    """One line per failing (and, for the confident gate, undecided) case, for stderr."""
    if reading.require is None:
        return []
    shown = shown or gate_text(reading.require)
    k = reading.k
    if not reading.confident:
        return [
            f"gate: {c.figures.name}: pass@{k} {two_decimals(c.figures.pass_at_k)} "
            f"is below --require {shown}"
            for c in reading.failing
        ]
    level = level_text(reading.level)
    lines = []
    for c in reading.cases:
        interval = c.intervals.pass_at_k
        ci = f"pass@{k} {level} CI {interval_text(interval)}" if interval else ""
        if interval is None and c.verdict == "undecided":
            lines.append(
                f"gate: {c.figures.name}: undecided: pass@{k} is undefined "
                f"with {c.figures.n} attempts (fewer than {k})"
            )
        elif c.verdict == "fail":
            lines.append(f"gate: {c.figures.name}: fail: {ci} is below --require {shown}")
        elif c.verdict == "undecided":
            lines.append(
                f"gate: {c.figures.name}: undecided: {ci} includes --require {shown} "
                "(more attempts would settle it)"
            )
    return lines
