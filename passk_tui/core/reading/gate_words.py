"""The gate's verdict in words, once: a line per failing or undecided case and the count.

What stderr says at the end of a run, a pair's candidate and a pytest session say of their
gate; the Results screen says the same verdicts in its header. Words of a ``Reading``, so
they sit with the reading and not in the statistics that decide the verdicts.
"""

from __future__ import annotations

from passk_tui.core.stats.gating.family_wise import FAMILY_WISE_METHOD
from passk_tui.core.stats.gating.gate import CaseReading, Reading
from passk_tui.core.stats.plan.gate_chance import attempts_to_settle
from passk_tui.core.stats.plan.gate_thresholds import MAX_PLANNED
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.text.figure_text import (
    gate_text,
    interval_text,
    level_text,
    promise_words,
    two_decimals,
)


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
