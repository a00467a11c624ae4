"""The per-case figures, computed exactly: pass@1, pass@k, pass^k, all passed.

Everything is a ``Fraction`` so the gate compares exact values (0.899 fails a
0.9 gate even though it shows as 0.90); only display rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb


def pass_at_1(n: int, c: int) -> Fraction:
    """The share of attempts that passed."""
    return Fraction(c, n) if n else Fraction(0)


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """The unbiased estimator 1 - C(n-c, k) / C(n, k) over all n attempts.

    The chance that at least one of k attempts, drawn without replacement from
    the n made, passed. 1 when fewer than k attempts failed.
    """
    _check(n, c, k)
    if n - c < k:
        return Fraction(1)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """pass^k = C(c, k) / C(n, k): the chance that k attempts drawn from the n all passed."""
    _check(n, c, k)
    return Fraction(comb(c, k), comb(n, k))


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def two_decimals(value: Fraction) -> str:
    """How every figure is shown."""
    return f"{float(value):.2f}"


@dataclass(frozen=True, slots=True)
class CaseFigures:
    """One case's counts and figures once its attempts are in."""

    name: str
    n: int
    passed: int
    wrong: int
    errored: int
    k: int

    @property
    def pass_at_1(self) -> Fraction:
        return pass_at_1(self.n, self.passed)

    @property
    def pass_at_k(self) -> Fraction:
        """pass@k; with fewer than k attempts in (a live or cut-short case), over the attempts made."""
        return pass_at_k(self.n, self.passed, min(self.k, self.n)) if self.n else Fraction(0)

    @property
    def pass_hat_k(self) -> Fraction:
        return pass_hat_k(self.n, self.passed, min(self.k, self.n)) if self.n else Fraction(0)

    @property
    def all_passed(self) -> bool:
        return self.n > 0 and self.passed == self.n
