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
from passk_tui.core.stats.gating.family_wise import FAMILY_WISE_METHOD, case_level
from passk_tui.core.stats.plan.gate_chance import attempts_to_settle
from passk_tui.core.stats.plan.gate_thresholds import MAX_PLANNED
from passk_tui.core.stats.rates.figures import CaseFigures, FigureIntervals
from passk_tui.core.stats.rates.intervals import (
    CLOPPER_PEARSON,
    DEFAULT_CONFIDENCE,
    GateVerdict,
    IntervalMethod,
    gate_verdict,
)
from passk_tui.core.text.figure_text import (
    gate_text,
    interval_text,
    level_text,
    promise_words,
    two_decimals,
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


def promise_text(reading: Reading) -> str:
    """Which promise the confident gate's verdicts keep: ``95% per case``, or ``95% whole
    suite (Bonferroni: each of 20 cases at 99.75%)``."""
    text = f"{level_text(reading.promise)} {promise_words(reading.family_wise)}"
    if reading.family_wise:
        text += (
            f" ({FAMILY_WISE_METHOD}: each of {reading.suite_size:,} cases at "
            f"{level_text(reading.level)})"
        )
    return text


def settle_text(case: CaseReading, reading: Reading) -> str:
    """What would settle an undecided case: about how many more attempts decide it half
    the time, its rate taken at its estimate (``core.stats.plan.gate_chance``)."""
    assert reading.require is not None
    f = case.figures
    more = attempts_to_settle(f.passed, f.n, reading.require, reading.k, reading.level)
    if more is None:
        return f"too close to the line: more than {MAX_PLANNED:,} more attempts to decide it"
    return f"about {more:,} more {'attempt' if more == 1 else 'attempts'} would decide it half the time"


def errored_share(f: CaseFigures) -> str:
    """``6 of 10 errored``: how much of a case's not passing is the platform's."""
    return f"{f.errored} of {f.n} errored"


def gate_lines(reading: Reading, shown: str | None = None) -> list[str]:
    """One line per failing (and, for the confident gate, undecided) case, for stderr; the
    confident gate ends with its count of verdicts and the promise they keep."""
    if reading.require is None:
        return []
    shown = shown or gate_text(reading.require)
    k = reading.k
    if not reading.confident:
        return [
            f"gate: {c.figures.name}: pass@{k} {two_decimals(c.figures.pass_at_k)}, "
            f"{errored_share(c.figures)}, is below --require {shown}"
            for c in reading.failing
        ]
    level = level_text(reading.level)
    lines = []
    for c in reading.cases:
        interval = c.intervals.pass_at_k
        ci = ""
        if interval:
            ci = f"pass@{k} {level} CI {interval_text(interval)}, {errored_share(c.figures)},"
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
                f"({settle_text(c, reading)})"
            )
    counts = [sum(c.verdict == v for c in reading.cases) for v in ("pass", "fail", "undecided")]
    lines.append(
        f"gate: pass@{k} at or above {shown} at {promise_text(reading)}: "
        f"{counts[0]:,} pass, {counts[1]:,} fail, {counts[2]:,} undecided"
    )
    return lines
