"""An anytime-valid interval for a case's pass rate: the beta-binomial mixture confidence sequence.

Adaptive attempts look at a case after every attempt and stop once it is
decided. A fixed-n interval (Clopper-Pearson) promises coverage C only at one
n planned in advance; looked at after every attempt, some look misses the truth
far more often than 1-C, and stopping at that look turns the miss into a wrong
verdict. A confidence sequence covers the truth at every n at once.

The method is Robbins' mixture martingale for Bernoulli trials (H. Robbins,
"Statistical methods related to the law of the iterated logarithm", Ann. Math.
Statist. 41, 1970), in the form of S. R. Howard, A. Ramdas, J. McAuliffe and
J. Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence sequences",
Ann. Statist. 49(2), 2021 (the beta-binomial mixture). For a candidate rate p,
after c passes in n attempts,

    M_n(p) = B(a + c, b + n - c) / B(a, b) / (p^c (1 - p)^(n - c))

is the likelihood of the attempts under rates drawn from a Beta(a, b) prior
over their likelihood under p. Under p it is a nonnegative martingale with
mean 1 (the beta-binomial probabilities sum to 1), so Ville's inequality gives
P(M_n(p) >= 1/(1-C) for some n) <= 1-C. The interval at n is therefore
{p : M_n(p) <= 1/(1-C)}, and it contains the true p at every n at once with
probability at least C, however the stopping time was chosen. log M_n is convex
in p with its minimum (at most 0) at c/n, so the set is one interval whose end
points are found by bisection on each side of c/n, with only ``math.lgamma``.

The prior is Jeffreys', Beta(1/2, 1/2): the reference prior for a Bernoulli
rate, fixed before any data, and its mass near 0 and 1 is where most cases of
a suite sit (always pass, always fail), so those settle soonest: 6 passes of 6
put pass@3 above 0.8 at 95%, 0 of 9 put it below; the uniform prior needs 6
and 11. The price is an interval 3-4% wider for a case near 0.5.

Why not a betting confidence sequence (Waudby-Smith and Ramdas, "Estimating
means of bounded random variables by betting", JRSS B 86(1), 2024): it is
tighter for general bounded outcomes, but for a Bernoulli rate the mixture
is the Bayes-optimal martingale for its prior, each of its intervals depends on
(c, n) alone (computed once per count and cached), and it needs no tuned
betting sequence.

What a case reports is the running intersection of the sequence over the
prefixes of its attempts in attempt-number order (attempts 1..m, m = 1..n):
the event "every interval of the sequence holds p" is the one Ville's
inequality bounds, so the intersection holds p with the same chance C, and it
can only shrink as attempts come in. So a case decided at m (its interval wholly
on one side of X, or narrow enough) stays decided at every n > m: an attempt
still in flight at the stop finishes and counts without moving the verdict. It
depends on the outcomes in attempt-number order, which are stored, so it is the
same on resume and does not depend on which attempt finished first.

The intersection can only come out empty when some interval has already missed
p (the chance of that, over the whole sequence, is at most 1-C). The outcomes
cannot say which interval missed; the interval that would empty it is skipped
and the running one kept, so the interval still only shrinks and a verdict once
given is not taken back (the alternative, restarting from the latest interval,
would let a case decided on the same outcomes flip). On the event that every
interval holds p nothing is skipped, so the coverage C stands.
"""

from __future__ import annotations

from functools import lru_cache
from math import lgamma, log, log1p

from passk_tui.core.stats.rates.intervals import Interval, check_counts, check_level

#: Jeffreys' prior on the pass rate, Beta(1/2, 1/2) (see the module docstring).
PRIOR_A = 0.5
PRIOR_B = 0.5


class BetaBinomialMixture:
    """The anytime-valid interval: valid at every n, so a case may stop the moment it is decided."""

    name = "beta-binomial-mixture"
    label = "anytime-valid (beta-binomial mixture)"

    def rate(self, passed: int, n: int, confidence: float, order: bytes | None = None) -> Interval:
        """The interval at n alone; with ``order`` (its n outcomes, 1 a pass, 0 not, by attempt
        number), the running intersection over its prefixes: what an adaptive case reports."""
        check_counts(passed, n)
        check_level(confidence)
        if n == 0:
            return Interval(0.0, 1.0)
        threshold = -log(1.0 - confidence)
        if order is None:
            return _mixture_interval(passed, n, threshold)
        if len(order) != n or order.count(1) != passed:
            raise ValueError(f"order has {order.count(1)} of {len(order)}, not {passed} of {n}")
        return _running_interval(order, threshold)

    def __repr__(self) -> str:
        return "BetaBinomialMixture()"


CONFIDENCE_SEQUENCE = BetaBinomialMixture()


def log_mixture_ratio(p: float, passed: int, n: int) -> float:
    """log M_n(p): the log likelihood ratio of the Jeffreys mixture against rate p.

    Infinite where p makes the attempts impossible (p = 0 with a pass, p = 1
    with a failure).
    """
    if (passed and p <= 0.0) or (passed < n and p >= 1.0):
        return float("inf")
    return _log_marginal(passed, n) - _log_likelihood(p, passed, n)


def _log_likelihood(p: float, passed: int, n: int) -> float:
    """log(p^c (1-p)^(n-c)), with 0 log 0 = 0 at the ends."""
    failed = n - passed
    return (passed * log(p) if passed else 0.0) + (failed * log1p(-p) if failed else 0.0)


def _log_marginal(passed: int, n: int) -> float:
    """log of the prior-averaged likelihood, log B(a + c, b + n - c) - log B(a, b)."""
    return _log_beta(PRIOR_A + passed, PRIOR_B + n - passed) - _log_beta(PRIOR_A, PRIOR_B)


def _log_beta(x: float, y: float) -> float:
    return lgamma(x) + lgamma(y) - lgamma(x + y)


def narrowed(running: Interval, step: Interval) -> Interval:
    """The running intersection with one more interval; one that would empty it is skipped."""
    low, high = max(running.low, step.low), min(running.high, step.high)
    return running if low > high else Interval(low, high)


#: Running intersections already made, by (outcomes, threshold), so a case asked again with
#: one more outcome (the stop rule, the live table) costs one step. A plain dict, emptied when
#: full, which the engine's thread and the app's may share.
_RUNNING: dict[tuple[bytes, float], Interval] = {}
_RUNNING_LIMIT = 8192


def _running_interval(order: bytes, threshold: float) -> Interval:
    """The intersection of the sequence's intervals over the prefixes 1..m of ``order``."""
    known = _RUNNING.get((order, threshold))
    if known is not None:
        return known
    n, passed = len(order), order.count(1)
    before = _RUNNING.get((order[:-1], threshold))
    if before is not None:
        running = narrowed(before, _mixture_interval(passed, n, threshold))
    else:
        running, passed = Interval(0.0, 1.0), 0
        for m, outcome in enumerate(order, start=1):
            passed += outcome
            running = narrowed(running, _mixture_interval(passed, m, threshold))
    if len(_RUNNING) >= _RUNNING_LIMIT:
        _RUNNING.clear()
    _RUNNING[order, threshold] = running
    return running


@lru_cache(maxsize=65536)
def _mixture_interval(passed: int, n: int, threshold: float) -> Interval:
    """{p : log M_n(p) <= threshold}, its end points by bisection on each convex branch.

    log M_n(p) <= threshold is log-likelihood(p) >= log-marginal - threshold,
    so the marginal is computed once. Sixty-four halvings take each bracket
    below 1e-19. Cached: the stop rule and the live app ask for the same (c, n)
    again and again.
    """
    floor = _log_marginal(passed, n) - threshold
    centre = passed / n
    low = 0.0 if passed == 0 else _crossing(passed, n, floor, 0.0, centre)
    high = 1.0 if passed == n else _crossing(passed, n, floor, 1.0, centre)
    return Interval(low, high)


def _crossing(passed: int, n: int, floor: float, outside: float, inside: float) -> float:
    """The p between ``outside`` and ``inside`` where the log-likelihood rises through ``floor``."""
    for _ in range(64):
        mid = (outside + inside) / 2.0
        if _log_likelihood(mid, passed, n) < floor:
            outside = mid
        else:
            inside = mid
    return inside
