"""Where the confident gate's verdicts begin, per n: the fewest passes that pass, the most that fail.

For a case with c passes of n the confident gate says ``pass`` when the low end
of its pass@k interval is at or above X, ``fail`` when the high end is below X.
pass@k = 1-(1-p)^k is increasing in p, so on the rate's scale the line is
r = 1-(1-X)^(1/k), and for a fixed n the verdict depends on c through two
thresholds: ``pass`` from c = pass_from[n] up, ``fail`` from c = fail_to[n] down.
Planning sums the binomial law of c over them (``core.stats.plan.gate_chance``).

Fixed n, exact interval (Clopper-Pearson at level C, each tail (1-C)/2): the
low end is at or above r exactly when P(Bin(n, r) >= c) <= (1-C)/2, and the
high end is below r exactly when P(Bin(n, r) <= c) < (1-C)/2 (the interval is
the set of rates neither one-sided test rejects). Both tails are walked along n
(``core.stats.rates.binomial``): the pass threshold moves up by 0 or 1 per attempt
(one more attempt cannot make a count that passed fail to, nor a count one
short of it pass at n + 1 with one more pass), and so does the fail threshold,
so 10,000 n cost 10,000 steps.

Anytime-valid interval (the beta-binomial mixture of ``core.stats.rates.sequences``): the
low end is at or above r exactly when r <= c/n and log M_n(r) >= log(1/(1-C)),
the high end below r when r > c/n and log M_n(r) > log(1/(1-C)): one
``lgamma`` sum per (c, n), the threshold found by a local search from the one
at n-1. This is the interval at (c, n) alone; a case's reported interval is the
running intersection over its prefixes, which only ever decides sooner, so a
plan read from it errs on the side of more attempts.

A case with fewer than k attempts has no pass@k and is undecided: its
thresholds are n+1 (no count passes) and -1 (none fails).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import expm1, log, log1p
from threading import Lock

from passk_tui.core.stats.rates.binomial import LowerTail, UpperTail
from passk_tui.core.stats.rates.sequences import log_mixture_ratio

#: The most attempts per case any plan looks at: past this it says ``>10000``.
MAX_PLANNED = 10_000


def rate_line(require: Fraction, k: int) -> float:
    """The per-attempt rate r at which pass@k = X: 1-(1-X)^(1/k), stable near 0 and 1."""
    x = float(require)
    if x >= 1.0:
        return 1.0
    return -expm1(log1p(-x) / k)


@dataclass
class Thresholds:
    """Per n (0 .. ``last``), the fewest passes that pass and the most that fail.

    ``pass_from[n]`` is n + 1 when no count passes at n; ``fail_to[n]`` is -1 when none
    fails. ``extend(last)`` walks further, so a plan pays only for the n it reads.
    """

    require: Fraction
    k: int
    confidence: float
    anytime: bool
    pass_from: list[int] = field(default_factory=lambda: [1])
    fail_to: list[int] = field(default_factory=lambda: [-1])

    def __post_init__(self) -> None:
        self._line = rate_line(self.require, self.k)
        self._miss = 1.0 - self.confidence
        self._upper = UpperTail(self._line)
        self._lower = LowerTail(self._line)
        self._lock = Lock()  # one Thresholds may be shared (the app's thread and the engine's)

    @property
    def last(self) -> int:
        return len(self.pass_from) - 1

    def extend(self, last: int) -> None:
        """Know the thresholds for every n up to ``last``."""
        with self._lock:
            self._extend(last)

    def _extend(self, last: int) -> None:
        while self.last < last:
            n = self.last + 1
            if self.anytime:
                step_pass, step_fail = self._anytime_step(n)
            else:
                step_pass, step_fail = self._exact_step(n)
            if n < self.k:
                step_pass, step_fail = n + 1, -1
            elif self.require == 0:
                step_pass = 0  # every interval's low end is at or above 0
            self.pass_from.append(step_pass)
            self.fail_to.append(step_fail)

    def _exact_step(self, n: int) -> tuple[int, int]:
        tail = self._miss / 2.0
        upper, lower = self._upper, self._lower
        upper.grow()
        lower.grow()
        upper.move_to(max(upper.c, 1))  # no pass at all passes no line above 0
        while upper.c <= n and upper.value > tail:
            upper.move_to(upper.c + 1)
        while lower.c + 1 < n:
            lower.move_to(lower.c + 1)
            if lower.value >= tail:
                lower.move_to(lower.c - 1)
                break
        return upper.c, lower.c

    def _anytime_step(self, n: int) -> tuple[int, int]:
        threshold = -log(self._miss)
        line = self._line

        def passes(c: int) -> bool:
            return line <= c / n and log_mixture_ratio(line, c, n) >= threshold

        def fails(c: int) -> bool:
            return line > c / n and log_mixture_ratio(line, c, n) > threshold

        c = min(self.pass_from[-1], n + 1)
        while c > 0 and passes(c - 1):
            c -= 1
        while c <= n and not passes(c):
            c += 1
        f = min(self.fail_to[-1], n - 1)
        while f + 1 < n and fails(f + 1):
            f += 1
        while f >= 0 and not fails(f):
            f -= 1
        return c, f
