"""Several targets measured on the same cases: the first against each other, Holm over every pair.

A matrix (``--version 1,2,3``) asks one question per case and other target: did
it move from the first? Each pair is compared exactly as ``compare`` compares two
evaluations (Fisher's exact test, or the anytime-valid one when a side's n was
chosen by looking; the suite line stratified by case), and then every per-case
p of every pair is adjusted together by Holm's method, so that the chance of
calling any unchanged (case, target) improved or regressed stays under 1-C
however many targets there are. Each pair's suite line keeps its own test: it
is one statement per pair, read beside the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.core.stats.comparing.compare import Comparison, Side, case_verdict, compare, holm


@dataclass(frozen=True, slots=True)
class MatrixComparison:
    """The first target against each other one; each pair's ``p`` and verdicts are the
    matrix-wide Holm's (``p_raw`` stays the case's own test)."""

    pairs: tuple[Comparison, ...]
    confidence: Fraction

    @property
    def fails_on_regression(self) -> bool:
        """What --fail-on-regression fails on: any pair with a regressed case or suite."""
        return any(pair.fails_on_regression for pair in self.pairs)


def compare_matrix(
    sides: Sequence[Side], confidence: Fraction = DEFAULT_CONFIDENCE
) -> MatrixComparison:
    """Compare ``sides[0]`` with each of the others, then adjust every case's p by Holm over
    every pair together. NothingToCompare as ``compare`` raises it; at least two sides."""
    if len(sides) < 2:
        raise ValueError("a matrix compares at least two targets")
    first, *others = sides
    alone = [compare(first, other, confidence) for other in others]
    adjusted = iter(holm([case.p_raw for pair in alone for case in pair.cases]))
    alpha = 1 - confidence
    pairs = []
    for pair in alone:
        cases = []
        for case in pair.cases:
            p = next(adjusted)
            cases.append(replace(case, p=p, verdict=case_verdict(case.a, case.b, p, alpha)))
        pairs.append(replace(pair, cases=tuple(cases), in_matrix=True))
    return MatrixComparison(tuple(pairs), confidence)
