"""How often the suite line's odds-ratio interval holds the true common odds ratio.

    python bench/suite_interval.py [--suites 4000] [--cases 5] [--seed 7]

Simulated at the level of counts, through ``core.compare.compare`` as two stored
evaluations would be: each case's A rate is uniform on [--low, 1] (near the top,
so that B is often never worse than A, or never better, and the odds ratio is 0
or inf), B's rate has ``--odds`` times A's odds, both sides run n attempts. A suite
with no case that varies has no interval and counts apart. The promise is that the
interval at level C holds the true odds ratio in at least C of suites; the rows
split the suites by the kind of interval they got (the normal one of
Robins-Breslow-Greenland, or the exact one-sided one when the discordance is all
one way), so both kinds are seen against it.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from fractions import Fraction

from harness import machine

from passk_tui.core.stats.comparing.compare import Side, compare
from passk_tui.core.stats.rates.figures import CaseFigures


@dataclass
class Coverage:
    """Suites with an interval of one kind, and those whose interval held the true ratio."""

    suites: int = 0
    held: int = 0

    def text(self) -> str:
        return f"{self.held / self.suites:.3f} ({self.held}/{self.suites})" if self.suites else "-"


def lifted(rate: float, odds: float) -> float:
    return rate * odds / (1 - rate + rate * odds)


def side(label: str, rng: random.Random, rates: list[float], n: int) -> Side:
    counts = [sum(rng.random() < r for _ in range(n)) for r in rates]
    return Side(label, 1, [CaseFigures(f"c{i}", n, c, n - c, 0, 1) for i, c in enumerate(counts)])


def row(args: argparse.Namespace, rng: random.Random, n: int, odds: float) -> str:
    normal, one_way, empty = Coverage(), Coverage(), 0
    for _ in range(args.suites):
        rates = [rng.uniform(args.low, 1.0) for _ in range(args.cases)]
        suite = compare(
            side("A", rng, rates, n),
            side("B", rng, [lifted(r, odds) for r in rates], n),
            args.confidence,
        ).suite
        if suite.low is None or suite.high is None or suite.odds_ratio is None:
            empty += 1
            continue
        kind = one_way if suite.odds_ratio in (0.0, float("inf")) else normal
        kind.suites += 1
        kind.held += suite.low <= odds <= suite.high
    both = Coverage(normal.suites + one_way.suites, normal.held + one_way.held)
    return f"  {n:<4} {odds:<5g} {both.text():<22} {normal.text():<22} {one_way.text():<22} {empty}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", type=int, default=4000)
    parser.add_argument("--cases", type=int, default=5)
    parser.add_argument("--low", type=float, default=0.7, help="A's rates are uniform on [low, 1]")
    parser.add_argument("--attempts", default="5,10,20")
    parser.add_argument("--odds", default="1,2,4", help="B's common odds ratios, one row each")
    parser.add_argument("--confidence", type=Fraction, default=Fraction(95, 100))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"# {machine()}")
    print(
        f"# {args.suites} suites of {args.cases} cases, A's rates on [{args.low:g}, 1], "
        f"confidence {float(args.confidence):g}, seed {args.seed}"
    )
    rng = random.Random(args.seed)
    start = time.perf_counter()
    print("  n    odds  held, any interval     normal (RBG)           one-way (exact)        none")
    for n in (int(x) for x in args.attempts.split(",")):
        for odds in (float(x) for x in args.odds.split(",")):
            print(row(args, rng, n, odds))
    print(f"\n# {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
