"""Flakiness over time: per case, verdict changes within a version and pass-rate moves across versions.

The input is an agent's stored evaluations in time order, each read as a ``Measurement``:
its version, its cases' counts and each case's verdict (the gate's when the evaluation had
one, else "all passed"). Two questions are answered per case:

- **Flaky with nothing changed**: how often its verdict changed from one evaluation to the
  next evaluation of the *same* version. Only evaluations that give the case a verdict take
  part (an undecided gate or an unfinished case gives none); a change between versions is no
  flip of this kind and is not counted.
- **Moved when the version did**: for each pair of consecutive versions (by number), the
  case's attempts of all evaluations of each version pooled into one 2x2 table and tested as
  ``compare`` tests two evaluations (``core.stats.comparing.compare``: Fisher's exact test,
  or the anytime-valid one when any pooled evaluation's n was chosen by looking), Holm over
  the cases both versions measured. A case moved when its adjusted p is below 1-C.

Pooling treats every attempt of a version as a draw from one pass rate; a version whose
rate wanders between nights (the flakiness above) makes its p smaller than it should be, so
a case that is both flaky and "moved" deserves a second look, not a verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.core.stats.comparing.compare import (
    CaseComparison,
    ChangeVerdict,
    Comparison,
    Side,
    compare,
)
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.intervals import IntervalMethod

#: The k a version's pooled figures are compared at: the test reads only passes and attempts.
_POOLED_K = 1


@dataclass(frozen=True, slots=True)
class Measurement:
    """One stored evaluation of the agent as the series reads it (oldest first in a series)."""

    id: str
    created: float
    version: int
    figures: tuple[CaseFigures, ...]
    """Its cases' counts, in its own case order."""
    verdicts: Mapping[str, bool]
    """Each case that has a verdict: True passed (the gate, or all passed), False not."""
    looked: bool
    """Its n was chosen by looking (adaptive or extended): Fisher's fixed-n test is not valid."""
    method: IntervalMethod
    """The interval method its own figures are read with (``interval_choice``)."""
    imported: bool = False
    """Made by another tool and imported (``passk-tui import``)."""


@dataclass(frozen=True, slots=True)
class CaseFlakiness:
    """One case over the series: in how many evaluations it was measured, how often its verdict
    changed between evaluations of the same version."""

    name: str
    evaluations: int
    verdict_changes: int

    @property
    def flaky(self) -> bool:
        """Its verdict changed while the version did not."""
        return self.verdict_changes > 0


@dataclass(frozen=True, slots=True)
class VersionChange:
    """Two consecutive versions, every case both measured compared on its pooled attempts."""

    before: int
    after: int
    comparison: Comparison | None
    """None when no case was measured in both versions."""

    @property
    def moved(self) -> list[CaseComparison]:
        """The cases whose pass rate changed beyond chance (Holm-adjusted), in case order."""
        if self.comparison is None:
            return []
        return [c for c in self.comparison.cases if c.verdict is not ChangeVerdict.UNCLEAR]


@dataclass(frozen=True, slots=True)
class Flakiness:
    """Every case's flakiness, then every version change, for one agent's series."""

    cases: tuple[CaseFlakiness, ...]
    changes: tuple[VersionChange, ...]
    confidence: Fraction

    @property
    def flaky(self) -> list[str]:
        return [c.name for c in self.cases if c.flaky]


def case_names(series: Sequence[Measurement]) -> list[str]:
    """Every case measured anywhere in the series, in the order first met (oldest first)."""
    names: dict[str, None] = {}
    for m in series:
        names.update((f.name, None) for f in m.figures if f.n)
    return list(names)


def flakiness(
    series: Sequence[Measurement], confidence: Fraction = DEFAULT_CONFIDENCE
) -> Flakiness:
    """Each case's verdict changes within versions, and each version change's moved cases.

    ``series`` is in time order (oldest first); versions change in the order of their numbers.
    """
    rows = tuple(_case_flakiness(name, series) for name in case_names(series))
    versions = sorted({m.version for m in series})
    changes = tuple(
        _version_change(before, after, series, confidence) for before, after in pairwise(versions)
    )
    return Flakiness(rows, changes, confidence)


def _case_flakiness(name: str, series: Sequence[Measurement]) -> CaseFlakiness:
    measured = sum(1 for m in series if any(f.name == name and f.n for f in m.figures))
    last_verdict: dict[int, bool] = {}
    changes = 0
    for m in series:
        verdict = m.verdicts.get(name)
        if verdict is None:
            continue
        before = last_verdict.get(m.version)
        if before is not None and before != verdict:
            changes += 1
        last_verdict[m.version] = verdict
    return CaseFlakiness(name, measured, changes)


def pooled(series: Sequence[Measurement], version: int) -> Side:
    """Every attempt of ``version``'s evaluations, per case, as one side of a comparison."""
    of_version = [m for m in series if m.version == version]
    counts: dict[str, list[int]] = {}
    for m in of_version:
        for f in m.figures:
            if f.n:
                total = counts.setdefault(f.name, [0, 0, 0, 0])
                for i, value in enumerate((f.n, f.passed, f.wrong, f.errored)):
                    total[i] += value
    figures = [
        CaseFigures(name, n, passed, wrong, errored, _POOLED_K)
        for name, (n, passed, wrong, errored) in counts.items()
    ]
    return Side(f"version {version}", _POOLED_K, figures, looked=any(m.looked for m in of_version))


def _version_change(
    before: int, after: int, series: Sequence[Measurement], confidence: Fraction
) -> VersionChange:
    a, b = pooled(series, before), pooled(series, after)
    shared = {f.name for f in a.figures} & {f.name for f in b.figures}
    if not shared:
        return VersionChange(before, after, None)
    return VersionChange(before, after, compare(a, b, confidence))
