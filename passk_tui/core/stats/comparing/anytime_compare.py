"""A two-sample test of one case's pass rate that stays valid when n was chosen by looking.

Fisher's exact test promises a false alarm at most 1-C only when both sides'
n were fixed before any attempt was seen. An adaptive evaluation stops a case
once it looks decided, and an extended one adds attempts after its figures were
shown; run on such outcome-chosen n, Fisher's test cries wolf 6.5-8.6% of the
time per case at 95% (issue 20). This test keeps its promise however each
side's n came about.

The method is an e-value against the composite null "A's and B's per-attempt
pass rates are equal", built from the mixture martingale the anytime-valid
interval already uses (``core/stats/rates/sequences.py``: H. Robbins, Ann. Math.
Statist. 41, 1970; S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon, Ann.
Statist. 49(2), 2021), with the null's free rate replaced by its maximum
likelihood as in universal inference (L. Wasserman, A. Ramdas, S. Balakrishnan,
"Universal inference", PNAS 117(29), 2020, the sequential form of section 7):

    E = inf over p of  M_A(p) * M_B(p),

where M(p) is a side's Jeffreys beta-binomial mixture likelihood over its
likelihood under rate p. The infimum is at the pooled rate (c_A + c_B) /
(n_A + n_B), so E is in closed form. Why it is valid: if the two rates are
equal to some p0, M_A(p0) * M_B(p0) is a nonnegative martingale with mean 1
in any order the attempts of the two sides land (each attempt moves one
factor, by a factor of mean 1), and E is at most it; so by Ville's inequality
the chance that E ever reaches 1/alpha is at most alpha, and at any stopping
time (an adaptive stop, an extension, a look) E is an e-value. Its p-value
min(1, 1/E) is therefore valid under optional stopping and continuation, and
Holm's method, which needs only valid p-values, adjusts it across the cases as
it does Fisher's.

The price is power: at a fixed n planned in advance Fisher's test finds more
(``bench/compare.py`` measures both), so this one is used only when a side's
n was chosen by looking.
"""

from __future__ import annotations

from math import exp

from passk_tui.core.stats.rates.sequences import log_mixture_ratio

#: How the comparison names this test in its output and in the .json ``method``.
ANYTIME_METHOD = (
    "anytime-valid e-value test (Jeffreys beta-binomial mixture over the pooled rate), "
    "Holm-adjusted across the compared cases"
)


def log_e_value(passed_a: int, n_a: int, passed_b: int, n_b: int) -> float:
    """log E: the two sides' mixture martingales multiplied, at the pooled rate (their minimum)."""
    total = n_a + n_b
    if total == 0:
        return 0.0
    pooled = (passed_a + passed_b) / total
    return log_mixture_ratio(pooled, passed_a, n_a) + log_mixture_ratio(pooled, passed_b, n_b)


def anytime_p(passed_a: int, n_a: int, passed_b: int, n_b: int) -> float:
    """The anytime-valid p-value min(1, 1/E) of "A's and B's pass rates are equal"."""
    log_e = log_e_value(passed_a, n_a, passed_b, n_b)
    return 1.0 if log_e <= 0.0 else exp(-log_e)
