"""Chance-corrected agreement: Fleiss' kappa (several votes per answer), Cohen's (two raters).

Fleiss, J. L. (1971), "Measuring nominal scale agreement among many raters",
Psychological Bulletin 76(5): with N subjects each rated by the same n raters into k
categories (n_ij raters put subject i in category j), P_i = (sum_j n_ij^2 - n) / (n(n-1)),
P = mean P_i, p_j = sum_i n_ij / (N n), Pe = sum_j p_j^2, kappa = (P - Pe) / (1 - Pe).
Cohen, J. (1960), "A coefficient of agreement for nominal scales": from the square table of
two raters' counts, po the share on the diagonal, pe the sum of the products of the row and
column shares, kappa = (po - pe) / (1 - pe). Both are undefined (None) when chance alone
already agrees fully (pe = 1: every rating in one category). Checked in the tests against
statsmodels' ``fleiss_kappa`` and ``cohens_kappa``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa of ``table`` (a row per subject, a count per category, each row summing to
    the same n >= 2); None for no subjects or when it is undefined (Pe = 1)."""
    if not table:
        return None
    raters = sum(table[0])
    if raters < 2 or any(sum(row) != raters for row in table):
        raise ValueError("every subject needs the same number (at least 2) of ratings")
    subjects = len(table)
    categories = len(table[0])
    # Exact fractions: a kappa of a small table must not wobble with float sums.
    agreement = (
        sum(Fraction(sum(c * c for c in row) - raters, raters * (raters - 1)) for row in table)
        / subjects
    )
    shares = [Fraction(sum(row[j] for row in table), subjects * raters) for j in range(categories)]
    chance = sum(share * share for share in shares)
    if chance == 1:
        return None
    return float((agreement - chance) / (1 - chance))


def cohens_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa of a square table of two raters' counts (rows one rater, columns the
    other); None for no ratings or when it is undefined (pe = 1)."""
    total = sum(sum(row) for row in table)
    if total == 0:
        return None
    size = len(table)
    observed = Fraction(sum(table[i][i] for i in range(size)), total)
    rows = [Fraction(sum(table[i]), total) for i in range(size)]
    columns = [Fraction(sum(table[i][j] for i in range(size)), total) for j in range(size)]
    chance = sum(r * c for r, c in zip(rows, columns, strict=True))
    if chance == 1:
        return None
    return float((observed - chance) / (1 - chance))
