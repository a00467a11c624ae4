"""How often `passk-tui compare` cries wolf, and how often it finds a real drop.

    python bench/compare.py [--suites 1000] [--cases 50] [--seed 12]

Simulated at the level of counts: each case of a suite has a true pass rate, and
a version's n attempts of it pass Binomial(n, rate) times (a fixed seed, so the
figures repeat). Every suite goes through ``core.compare.compare`` exactly as two
stored evaluations would (Fisher's exact test per case, Holm across the cases,
a verdict at adjusted p < 1-C).

- A/A: both versions have the same true rates (drawn once per suite, uniform on
  [0.3, 1]). The share of suites with any case called regressed is the false-alarm
  rate Holm promises to keep at most 1-C; beside it, a naive rule that calls a
  case regressed whenever its pass@1 went down.
- A/B: the same, but on ``--dropped`` cases the candidate's rate falls from 0.9 to
  0.5. Power is the share of those cases called regressed; the false alarms are
  the suites where an unchanged case was called regressed.
- The suite line: A/A suites whose suite verdict is not ``unclear`` (the
  Cochran-Mantel-Haenszel test's false alarms, goal <= 1-C), then suites where
  B lifts every case's odds of passing by ``--odds`` (a change that moves every
  case a little): how often the suite line says improved, against how often any
  single case is called improved.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from harness import machine

from passk_tui.core.stats.comparing.compare import ChangeVerdict, Side, compare
from passk_tui.core.stats.rates.figures import CaseFigures


@dataclass
class Tally:
    """What a batch of simulated suites came to."""

    suites: int = 0
    suites_with_false_alarm: int = 0
    suites_with_naive_false_alarm: int = 0
    unchanged_cases: int = 0
    naive_false_alarms: int = 0
    dropped_cases: int = 0
    found: int = 0
    naive_found: int = 0
    suites_with_unadjusted_false_alarm: int = 0
    unadjusted_found: int = 0


def passes(rng: random.Random, n: int, rate: float) -> int:
    return sum(rng.random() < rate for _ in range(n))


def side(label: str, counts: Sequence[int], n: int) -> Side:
    return Side(label, 1, [CaseFigures(f"c{i}", n, c, n - c, 0, 1) for i, c in enumerate(counts)])


def simulate(
    rng: random.Random, suites: int, cases: int, n: int, dropped: int, confidence: Fraction
) -> Tally:
    """``suites`` suites of ``cases`` cases at n attempts, the first ``dropped`` falling 0.9 -> 0.5."""
    tally = Tally()
    for _ in range(suites):
        rates = [0.9] * dropped + [rng.uniform(0.3, 1.0) for _ in range(cases - dropped)]
        after = [0.5] * dropped + rates[dropped:]
        a = [passes(rng, n, r) for r in rates]
        b = [passes(rng, n, r) for r in after]
        compared = compare(side("A", a, n), side("B", b, n), confidence).cases
        verdicts = [c.verdict for c in compared]
        # Fisher alone, each case at 1-C with no adjustment: what Holm's promise costs in power.
        unadjusted = [c.p_raw < 1 - confidence and c.b.passed < c.a.passed for c in compared]
        went_down = [cb < ca for ca, cb in zip(a, b, strict=True)]
        tally.suites += 1
        tally.dropped_cases += dropped
        tally.found += sum(v is ChangeVerdict.REGRESSED for v in verdicts[:dropped])
        tally.naive_found += sum(went_down[:dropped])
        tally.unchanged_cases += cases - dropped
        tally.naive_false_alarms += sum(went_down[dropped:])
        tally.suites_with_false_alarm += any(
            v is ChangeVerdict.REGRESSED for v in verdicts[dropped:]
        )
        tally.suites_with_naive_false_alarm += any(went_down[dropped:])
        tally.unadjusted_found += sum(unadjusted[:dropped])
        tally.suites_with_unadjusted_false_alarm += any(unadjusted[dropped:])
    return tally


def lifted(rate: float, odds: float) -> float:
    """The rate whose odds are ``odds`` times ``rate``'s."""
    return rate * odds / (1 - rate + rate * odds)


def suite_verdicts(
    rng: random.Random, suites: int, cases: int, n: int, odds: float, confidence: Fraction
) -> tuple[int, int, int]:
    """Suites whose suite line is improved, regressed, and with any single case improved."""
    improved = regressed = any_case = 0
    for _ in range(suites):
        rates = [rng.uniform(0.3, 1.0) for _ in range(cases)]
        a = [passes(rng, n, r) for r in rates]
        b = [passes(rng, n, lifted(r, odds)) for r in rates]
        comparison = compare(side("A", a, n), side("B", b, n), confidence)
        improved += comparison.suite.verdict is ChangeVerdict.IMPROVED
        regressed += comparison.suite.verdict is ChangeVerdict.REGRESSED
        any_case += bool(comparison.with_verdict(ChangeVerdict.IMPROVED))
    return improved, regressed, any_case


def print_suite(rng: random.Random, args: argparse.Namespace) -> None:
    print(f"\nThe suite line, {args.suite_cases} cases:")
    print("  n    odds  suite improved        suite regressed       any case improved")
    for n in (int(x) for x in args.attempts.split(",")):
        for odds in (1.0, args.odds):
            up, down, any_case = suite_verdicts(
                rng, args.suites, args.suite_cases, n, odds, args.confidence
            )
            print(
                f"  {n:<4} {odds:<5g} {share(up, args.suites):<21} {share(down, args.suites):<21} "
                f"{share(any_case, args.suites)}"
            )


def share(count: int, total: int) -> str:
    return f"{count / total:.3f} ({count}/{total})" if total else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--dropped", type=int, default=5, help="cases whose rate falls 0.9 -> 0.5")
    parser.add_argument("--attempts", default="10,20,50,100", help="the n of the A/B suites")
    parser.add_argument("--confidence", type=Fraction, default=Fraction(95, 100))
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--suite-cases", type=int, default=20, help="cases of the suite-line rows")
    parser.add_argument("--odds", type=float, default=2.0, help="B's common odds ratio, suite rows")
    args = parser.parse_args()
    print(f"# {machine()}")
    print(
        f"# {args.suites} suites of {args.cases} cases, confidence {float(args.confidence):g}, "
        f"seed {args.seed}"
    )
    rng = random.Random(args.seed)
    start = time.perf_counter()
    aa = simulate(rng, args.suites, args.cases, 10, 0, args.confidence)
    print("\nA/A (same true rates), n = 10:")
    print(
        f"  suites with any case called regressed: {share(aa.suites_with_false_alarm, aa.suites)}"
    )
    print(
        "  Fisher without Holm: suites with any: "
        f"{share(aa.suites_with_unadjusted_false_alarm, aa.suites)}"
    )
    print(
        "  naive 'pass@1 went down': suites with any: "
        f"{share(aa.suites_with_naive_false_alarm, aa.suites)}; cases: "
        f"{share(aa.naive_false_alarms, aa.unchanged_cases)}"
    )
    print(f"\nA/B ({args.dropped} of {args.cases} cases fall 0.9 -> 0.5):")
    print(
        "  n    power (dropped cases called regressed)  suites with a false alarm"
        "  without Holm: power, suites with a false alarm"
        "  naive: dropped cases found  naive: unchanged cases flagged"
    )
    for n in (int(x) for x in args.attempts.split(",")):
        ab = simulate(rng, args.suites, args.cases, n, args.dropped, args.confidence)
        print(
            f"  {n:<4} {share(ab.found, ab.dropped_cases):<40} "
            f"{share(ab.suites_with_false_alarm, ab.suites):<26} "
            f"{share(ab.unadjusted_found, ab.dropped_cases)}, "
            f"{share(ab.suites_with_unadjusted_false_alarm, ab.suites):<16} "
            f"{share(ab.naive_found, ab.dropped_cases):<28} "
            f"{share(ab.naive_false_alarms, ab.unchanged_cases)}"
        )
    print_suite(rng, args)
    print(f"\n# {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
