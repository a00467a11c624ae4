"""``--family-wise``: the confident gate's promise made for the whole suite (Bonferroni).

Per case, the confident gate's verdict is wrong with chance at most 1-C (in
fact (1-C)/2: a wrong verdict needs the interval to miss on one given side).
Over M cases those chances add up: 20 cases at the line, judged at 95% with 40
attempts each, give at least one wrong ``fail`` about 37% of the time.

Family-wise, each case is judged at the level 1-(1-C)/M (Bonferroni's
inequality, C. E. Bonferroni, 1936; as an interval method, O. J. Dunn,
"Multiple comparisons among means", JASA 56, 1961): the M intervals then hold
their rates all at once with chance at least C, and a verdict can be wrong only
when its interval misses, so P(any case's verdict is wrong) <= 1-C for the
suite, whatever the cases' rates and however they depend on each other.

Why not Holm's step-down: it gains only on suites where many cases are far
from the line, and its per-case level would depend on the other cases'
p-values, so the interval shown beside a case would no longer be the one its
verdict read. Bonferroni's level is known before any attempt, so adaptive
attempts can stop on it and ``passk-tui plan`` can plan for it.
"""

from __future__ import annotations

#: How the faces and exports name the method.
FAMILY_WISE_METHOD = "Bonferroni"


def case_level(confidence: float, cases: int, family_wise: bool) -> float:
    """The level each case is judged at: C per case, or 1-(1-C)/M for the whole suite."""
    if not family_wise or cases <= 1:
        return confidence
    return 1.0 - (1.0 - confidence) / cases
