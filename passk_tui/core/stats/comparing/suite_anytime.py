"""The suite's test when a side's n was chosen by looking: a directional e-process over pairs.

The Cochran-Mantel-Haenszel test (``suite.py``) and its interval assume each
case's n was fixed in advance. When either side was adaptive or extended, the
suite is tested instead by an e-process that stays valid at any stopping time.

Each case's attempts are paired by attempt number: A's i-th with B's i-th, for
i up to the smaller of the two n (the longer side's extra attempts are not
used). For one pair with outcomes (y_A, y_B) and predicted pass rates (q_A,
q_B) chosen before it is seen, the pair's factor is

    E = q_A(y_A) q_B(y_B) / (m(y_A) m(y_B)),   m = (q_A + q_B) / 2,

where q(1) = q and q(0) = 1 - q. Under the null (A's and B's rates equal to
the same p, whatever p is) its expectation is g_A(p) g_B(p) with g_A + g_B =
2, so at most 1 (the block e-variable of R. J. Turner, A. Ly and P. D.
Grunwald, "Generic E-variables for exact sequential k-sample tests that allow
for optional stopping", J. Statist. Plann. Inference 230, 2024, with the
predictions allowed to borrow across strata as in R. J. Turner and P. D.
Grunwald, "Safe sequential testing and effect estimation in stratified count
data", AISTATS 2023). The product over pairs and over cases is then a nonnegative
supermartingale under the null "no case changed", the same null as the CMH
test's; the number of pairs of a case is a stopping time (each side's n
depends only on its own earlier outcomes), so the product at the end is an
e-value (Ville's inequality, as for the confidence sequence).

The predictions: a common shift of the log odds, estimated from the pairs
already seen in every case, (up + 1/2) / (down + 1/2) over the discordant pairs
(B passed and A not, and the reverse: under a common odds ratio R, a discordant
pair goes B's way with chance R / (1 + R)), around each case's own pooled rate
so far (with Krichevsky-Trofimov's 1/2). Two products are kept: one betting
only on B better (the shift held at 0 or above), one only on B worse. Their
mean is an e-value E, so p = min(1, 1/E) is valid; the verdict's direction is
the larger product's. A pair whose predictions are equal has a factor of 1, so
a case that always passes on both sides costs almost nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp, log

ANYTIME_SUITE_METHOD = (
    "anytime-valid e-value over the cases' attempts paired by number "
    "(directional, a common log-odds shift), Mantel-Haenszel common odds ratio as an estimate"
)


def suite_log_e_values(orders: Sequence[tuple[bytes, bytes]]) -> tuple[float, float]:
    """log of the two products, betting on B better and on B worse, over the cases' outcomes
    by attempt number (A's, B's); a case with no pair adds nothing."""
    pairs = [(a, b, min(len(a), len(b))) for a, b in orders]
    pooled = [0] * len(pairs)
    up = down = 0
    log_better = log_worse = 0.0
    for i in range(max((m for _, _, m in pairs), default=0)):
        shift = log((up + 0.5) / (down + 0.5))
        seen_up = seen_down = 0
        for j, (a, b, m) in enumerate(pairs):
            if i >= m:
                continue
            y_a, y_b = a[i], b[i]
            rate = (pooled[j] + 0.5) / (2 * i + 1)
            log_better += log_factor(rate, max(shift, 0.0), y_a, y_b)
            log_worse += log_factor(rate, min(shift, 0.0), y_a, y_b)
            pooled[j] += y_a + y_b
            seen_up += y_b > y_a
            seen_down += y_a > y_b
        up, down = up + seen_up, down + seen_down
    return log_better, log_worse


def suite_anytime_p(log_better: float, log_worse: float) -> float:
    """p = min(1, 1/E), E the mean of the two products."""
    top = max(log_better, log_worse)
    log_e = top + log((exp(log_better - top) + exp(log_worse - top)) / 2.0)
    return 1.0 if log_e <= 0.0 else exp(-log_e)


def log_factor(rate: float, shift: float, y_a: int, y_b: int) -> float:
    """log of one pair's factor, predicting A and B at ``rate``'s log odds -/+ shift / 2."""
    if shift == 0.0:
        return 0.0
    q_a = _shifted(rate, -shift / 2.0)
    q_b = _shifted(rate, shift / 2.0)
    mean = (q_a + q_b) / 2.0
    return (
        log(_chance(q_a, y_a))
        + log(_chance(q_b, y_b))
        - log(_chance(mean, y_a))
        - log(_chance(mean, y_b))
    )


def _shifted(rate: float, by: float) -> float:
    """The rate whose log odds are ``rate``'s plus ``by``."""
    odds = rate / (1.0 - rate) * exp(by)
    return odds / (1.0 + odds)


def _chance(q: float, y: int) -> float:
    return q if y else 1.0 - q
