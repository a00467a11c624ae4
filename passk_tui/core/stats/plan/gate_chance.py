"""How many attempts? The confident gate's chance of the right verdict, exactly, at every n.

A case whose true per-attempt pass rate is P has c ~ Binomial(n, P) passes of n.
The gate's verdict at n depends on c through two thresholds
(``core.stats.plan.gate_thresholds``), so the chance of each verdict is a binomial
tail, walked along n one term per step (``core.stats.rates.binomial``): no sampling.

``n for 50%`` is the smallest n at which the right verdict (``pass`` when
pass@k > X, ``fail`` when pass@k < X) comes with at least that chance. That
chance is not monotone in n: it rises while the threshold stays and drops where
the threshold steps up (the binomial's sawtooth), so a bisection over n could
step over the first n that reaches the target. Every n from k to 10,000 is
therefore read, in order, at one term per step: the first n that reaches the
target is the answer, and an n past which the chance later dips is still the
smallest one at which the gate reaches it.

``more_attempts`` answers exit 4 and ``plan --from``: a case with c of n so far,
its rate estimated by c/n, extended by m attempts, is judged at n + m by the
anytime-valid interval (its n is now chosen by looking), so its chance of any
verdict at n + m is read the same way over the m attempts to come.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from passk_tui.core.stats.plan.gate_thresholds import (
    MAX_PLANNED,
    Thresholds,
    rate_line,
)
from passk_tui.core.stats.rates.binomial import LowerTail, UpperTail
from passk_tui.core.stats.rates.intervals import GateVerdict

#: The chances a plan reads: ``n for 50%`` and ``n for 80%``.
TARGETS = (0.5, 0.8)

RightVerdict = GateVerdict | None
"""``pass`` or ``fail``: what the gate should say of a case; None (``never``) at pass@k = X."""


def pass_at_k_of_rate(rate: Fraction, k: int) -> Fraction:
    """pass@k of a case whose every attempt passes with chance ``rate``: 1-(1-P)^k, exactly."""
    return 1 - (1 - rate) ** k


def right_verdict(rate: Fraction, k: int, require: Fraction) -> RightVerdict:
    """``pass`` when pass@k > X, ``fail`` when below, None when equal: no verdict is right."""
    figure = pass_at_k_of_rate(rate, k)
    if figure == require:
        return None
    return "pass" if figure > require else "fail"


def verdict_chances(
    thresholds: Thresholds, rate: float, last: int, before: tuple[int, int] = (0, 0)
) -> Iterator[tuple[int, float, float]]:
    """(m, P(pass), P(fail)) after each of m = 1 .. ``last`` more attempts at ``rate``.

    ``before`` is (passes, attempts) already in: the case is judged at their count plus
    the m to come, the new passes ~ Binomial(m, rate).
    """
    passed, n = before
    thresholds.extend(n + last)
    upper, lower = UpperTail(rate), LowerTail(rate)
    for m in range(1, last + 1):
        upper.grow()
        lower.grow()
        upper.move_to(thresholds.pass_from[n + m] - passed)
        lower.move_to(thresholds.fail_to[n + m] - passed)
        yield m, upper.value, lower.value


def first_reaching(chances: Iterator[float], targets: Sequence[float]) -> dict[float, int | None]:
    """For each target, the first (1-based) position whose chance is at least it; None: none."""
    found: dict[float, int | None] = dict.fromkeys(targets)
    for position, chance in enumerate(chances, start=1):
        for target in targets:
            if found[target] is None and chance >= target:
                found[target] = position
        if all(v is not None for v in found.values()):
            break
    return found


def n_for(
    thresholds: Thresholds, rate: float, right: GateVerdict, targets: Sequence[float] = TARGETS
) -> dict[float, int | None]:
    """The smallest fixed n at which the gate says ``right`` with at least each target chance."""
    column = 1 if right == "pass" else 2
    chances = (step[column] for step in verdict_chances(thresholds, rate, MAX_PLANNED))
    return first_reaching(chances, targets)


def all_pass_n(thresholds: Thresholds) -> int | None:
    """The smallest n at which n passes of n give ``pass`` (and every larger n does too)."""
    thresholds.extend(MAX_PLANNED)
    return next(
        (n for n in range(1, MAX_PLANNED + 1) if thresholds.pass_from[n] <= n),
        None,
    )


@dataclass(frozen=True, slots=True)
class PlanRow:
    """One ``--expect P``: its pass@k, the n for each target chance, the right verdict."""

    rate: Fraction
    pass_at_k: Fraction
    n_for: dict[float, int | None]
    verdict: RightVerdict


def plan_rows(
    rates: Sequence[Fraction], thresholds: Thresholds, targets: Sequence[float] = TARGETS
) -> list[PlanRow]:
    """A row per expected pass rate: the attempts a fixed-n gate needs to judge it right."""
    rows = []
    for rate in rates:
        verdict = right_verdict(rate, thresholds.k, thresholds.require)
        found: dict[float, int | None] = dict.fromkeys(targets)
        if verdict is not None:
            found = n_for(thresholds, float(rate), verdict, targets)
        rows.append(PlanRow(rate, pass_at_k_of_rate(rate, thresholds.k), found, verdict))
    return rows


def more_attempts(passed: int, n: int, thresholds: Thresholds, target: float = 0.5) -> int | None:
    """About how many more attempts decide a case (either verdict) with chance ``target``.

    Its rate is taken to be c/n, its estimate; ``thresholds`` are the anytime-valid ones
    (an extended case's n is chosen by looking). None: more than 10,000.
    """
    rate = passed / n if n else 0.5
    chances = (p + f for _, p, f in verdict_chances(thresholds, rate, MAX_PLANNED, (passed, n)))
    return first_reaching(chances, (target,))[target]


@lru_cache(maxsize=64)
def anytime_thresholds(require: Fraction, k: int, confidence: float) -> Thresholds:
    """The anytime-valid thresholds of one gate, shared by every case it reads (they grow)."""
    return Thresholds(require, k, confidence, anytime=True)


@lru_cache(maxsize=4096)
def attempts_to_settle(
    passed: int, n: int, require: Fraction, k: int, confidence: float, target: float = 0.5
) -> int | None:
    """``more_attempts`` for a case under the gate (require, k, confidence), remembered:
    exit 4's lines, ``plan --from`` and the app ask for the same counts again."""
    return more_attempts(passed, n, anytime_thresholds(require, k, confidence), target)


def default_rates(require: Fraction, k: int) -> list[Fraction]:
    """A handful of pass rates around the line, two decimals each, highest first.

    The line's rate r plus and minus 0.02, 0.05 and 0.1, those strictly between 0 and 1
    and not at the line itself (a case there gets no right verdict).
    """
    line = rate_line(require, k)
    rates = set()
    for offset in (0.1, 0.05, 0.02, -0.02, -0.05, -0.1):
        rate = Fraction(round((line + offset) * 100), 100)
        if 0 < rate < 1 and right_verdict(rate, k, require) is not None:
            rates.add(rate)
    return sorted(rates, reverse=True)
