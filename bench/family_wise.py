"""The whole suite's wrong verdicts, per case and with --family-wise: exact, then simulated.

A suite of M cases, each with n attempts, is judged by the confident gate
(``core.stats.gating.gate.read``) per case and family-wise (Bonferroni, each case at
1-(1-C)/M). A suite's verdicts are wrong when any case's is: ``fail`` for a
case whose true pass@k is at or above X, ``pass`` for one below. The worst case
for the suite is every case at the line (true pass@k = X): each can only be
wrongly failed, and the chances add up.

Exact: P(a case at the line fails) is a binomial tail over the gate's
thresholds (``core.stats.plan.gate_thresholds``), and the suite's is
1-(1-q)^M. Simulated: suites of cases drawn at the line (and a mixed suite,
half at the line and half at pass@k 0.95 or 0.6) run through the real gate.

    python bench/family_wise.py                  # M 20, X 0.8, k 3, C 0.95, n 10 40 100, 10,000 suites
    python bench/family_wise.py --suites 2000    # quicker
"""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from passk_tui.core.stats.gating.family_wise import case_level  # noqa: E402
from passk_tui.core.stats.gating.gate import read  # noqa: E402
from passk_tui.core.stats.plan.gate_thresholds import Thresholds, rate_line  # noqa: E402
from passk_tui.core.stats.rates.binomial import LowerTail  # noqa: E402
from passk_tui.core.stats.rates.figures import CaseFigures  # noqa: E402


def exact_suite_wrong(require: Fraction, k: int, level: float, n: int, cases: int) -> float:
    """1-(1-q)^M, q = P(a case exactly at the line is failed at n attempts)."""
    thresholds = Thresholds(require, k, level, anytime=False)
    thresholds.extend(n)
    lower = LowerTail(rate_line(require, k))
    for _ in range(n):
        lower.grow()
    lower.move_to(thresholds.fail_to[n])
    return 1.0 - (1.0 - lower.value) ** cases


def simulate(
    rates: list[float], require: Fraction, k: int, confidence: float, n: int, suites: int, seed: int
) -> tuple[float, float]:
    """(per case, family-wise) share of suites with any wrong verdict, through the real gate."""
    rng = random.Random(seed)
    # At the line counts as at or above it (pass is right), whatever the float rounding says.
    line = rate_line(require, k)
    truth = [r >= line - 1e-12 for r in rates]
    wrong = [0, 0]
    for _ in range(suites):
        figures = []
        for i, rate in enumerate(rates):
            passed = sum(rng.random() < rate for _ in range(n))
            figures.append(CaseFigures(f"c{i}", n, passed, n - passed, 0, k))
        for slot, family_wise in enumerate((False, True)):
            reading = read(figures, require, confidence, family_wise=family_wise)
            wrong[slot] += any(
                (c.verdict == "fail" and right) or (c.verdict == "pass" and not right)
                for c, right in zip(reading.cases, truth, strict=True)
            )
    return wrong[0] / suites, wrong[1] / suites


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--require", default="0.8")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--n", type=int, nargs="+", default=[10, 40, 100])
    parser.add_argument("--suites", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    require, k, c, m = Fraction(args.require), args.k, args.confidence, args.cases
    level = case_level(c, m, True)
    line = rate_line(require, k)
    above, below = 1 - 0.05 ** (1 / k), 1 - 0.4 ** (1 / k)
    mixed = [line] * (m // 2) + [above if i % 2 else below for i in range(m - m // 2)]
    print(
        f"{m} cases, --require {args.require} --k {k} --confidence {c}; family-wise each case "
        f"at {level:.6g}; {args.suites:,} suites per cell, seed {args.seed}"
    )
    print("n    exact at the line: per case / family-wise   simulated at the line   mixed suite")
    for n in args.n:
        per_case = exact_suite_wrong(require, k, c, n, m)
        family = exact_suite_wrong(require, k, level, n, m)
        at_line = simulate([line] * m, require, k, c, n, args.suites, args.seed)
        mix = simulate(mixed, require, k, c, n, args.suites, args.seed + 1)
        print(
            f"{n:<4} {per_case:.4f} / {family:.4f}                     "
            f"{at_line[0]:.4f} / {at_line[1]:.4f}         {mix[0]:.4f} / {mix[1]:.4f}"
        )


if __name__ == "__main__":
    main()
