"""The exact bound of a common odds ratio whose estimate is 0 or infinite.

When every case's discordance goes one way (B never worse than A, say), each
case's table sits at an end of its support: B's passes are as many as its
margins allow. The Mantel-Haenszel estimate is then infinite (or 0), the log
scale has no centre and the Robins-Breslow-Greenland interval does not exist.
The interval that does is the exact conditional one (Gart, Biometrika 57,
1970; computed as Mehta, Patel and Gray do, JASA 80, 1985): given every
table's margins, B's passes in a case follow Fisher's noncentral
hypergeometric distribution with the common odds ratio psi, and the sum over
cases is at its largest exactly when every case is at its largest. The set of
psi under which so extreme a suite has probability at least (1-C)/2 is
[L, inf), L solving

    prod over cases of P(a_i = max_i; L) = (1-C)/2,

the tail the two-sided interval leaves on each side, so the bound is the one
``scipy.stats.contingency.odds_ratio(kind="conditional")`` gives for a single
table, which the tests check it against (and, for several, against the
convolution of ``scipy.stats.nchypergeom_fisher``). The estimate 0 is the
mirror: B's passes as few as they can be, the interval [0, U] with U the
reciprocal of L for the tables with A and B swapped.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb, exp, log

Table = tuple[int, int, int, int]
"""[[B passed, B not], [A passed, A not]], every margin non-empty."""


def lower_bound(tables: Sequence[Table], tail: float) -> float:
    """L for tables each at its largest ``B passed`` (the estimate infinite); ``tail`` = (1-C)/2."""
    target = log(tail)
    supports = [_support(table) for table in tables]
    low, high = -1.0, 1.0
    while _log_chance(supports, low) > target:
        low *= 2.0
    while _log_chance(supports, high) < target:
        high *= 2.0
    # Bisection on log psi (the chance rises with psi, from 0 towards 1), to far below the
    # two decimals shown.
    while high - low > 1e-12:
        middle = (low + high) / 2.0
        if middle in (low, high):  # no float between them: as close as it gets
            break
        if _log_chance(supports, middle) < target:
            low = middle
        else:
            high = middle
    return exp((low + high) / 2.0)


def upper_bound(tables: Sequence[Table], tail: float) -> float:
    """U for tables each at its smallest ``B passed`` (the estimate 0): A and B swapped."""
    return 1.0 / lower_bound([(c, d, a, b) for a, b, c, d in tables], tail)


Support = list[tuple[int, float]]
"""A table's possible ``B passed`` x, each as (x - its largest, log w(x) - log w(largest))."""


def _support(table: Table) -> Support:
    """The B passes the table's margins allow, each with its central hypergeometric weight
    w(x) = C(B's n, x) C(A's n, passes - x), relative to the largest x's."""
    a, b, c, d = table
    top = min(a + b, a + c)

    def log_weight(x: int) -> float:
        return log(comb(a + b, x)) + log(comb(c + d, a + c - x))

    return [(x - top, log_weight(x) - log_weight(top)) for x in range(max(0, a - d), top + 1)]


def _log_chance(supports: Sequence[Support], log_psi: float) -> float:
    """log P(every case at its largest B passed) when the common odds ratio is exp(log_psi):
    per case, P(largest) = 1 / sum of w(x)/w(largest) psi^(x - largest)."""
    total = 0.0
    for support in supports:
        terms = [weight + step * log_psi for step, weight in support]
        peak = max(terms)
        total -= peak + log(sum(exp(t - peak) for t in terms))
    return total
