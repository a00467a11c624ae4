"""Comparing evaluations whose n was chosen by looking: false alarms and power, per case.

    python bench/compare_adaptive.py [--trials 4000] [--seed 20]

At the level of counts, like bench/compare.py. Each trial is one case run by two
versions with the SAME true pass rate (A/A), each side sampled the way an
adaptive evaluation samples it: ``--attempts`` first, then one attempt at a time
until the real stop rule (``core.stats.gating.stopping``: the anytime-valid gate at
``--require`` with k = 3, or the precision rule) decides the case or it has
``--max-attempts``. A false alarm is the case's own p below 1-C (no Holm: the
per-case promise, before any adjustment lowers it).

- Fisher's exact test on those outcome-chosen n (what compare did before),
- the anytime-valid e-value test (``core.stats.comparing.anytime_compare``, what compare
  uses now when either side's n was chosen by looking),
- and the worst use of all: looking after every pair of attempts, up to
  ``--max-attempts``, and stopping at the first p below 1-C.

Then the price: power of each test at a fixed n planned in advance, one case
whose rate moves from ``--before`` to ``--after``.

And the suite line (``--suites`` suites of ``--cases`` cases, rates uniform on
[0.3, 1]): A/A suites whose suite verdict is not ``unclear`` when both sides are
adaptive, by the Cochran-Mantel-Haenszel test on those n and by the anytime
e-process that compare uses for such sides; then, at a fixed n, how often each
finds B lifting every case's odds of passing by ``--odds``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from fractions import Fraction

from harness import machine

from passk_tui.core.stats.comparing.anytime_compare import anytime_p
from passk_tui.core.stats.comparing.compare import ChangeVerdict, Side, compare, fisher_exact_p
from passk_tui.core.stats.gating.stopping import StopRule, stop_rule
from passk_tui.core.stats.rates.figures import CaseFigures

Test = Callable[[int, int, int, int], float]
"""(A's passes, A's n, B's passes, B's n) -> the case's p."""


def fisher(ca: int, na: int, cb: int, nb: int) -> float:
    return float(fisher_exact_p(ca, na - ca, cb, nb - cb))


TESTS: dict[str, Test] = {"Fisher's exact": fisher, "anytime-valid e-value": anytime_p}


def adaptive_run(rng: random.Random, rate: float, rule: StopRule, attempts: int, cap: int) -> bytes:
    """One side's outcomes of one case: ``attempts``, then more until the rule stops it."""
    order = bytearray()
    for n in range(1, cap + 1):
        order.append(rng.random() < rate)
        if n >= attempts and rule(bytes(order)) is not None:
            break
    return bytes(order)


def share(count: int, total: int) -> str:
    return f"{count / total:.4f} ({count}/{total})"


def adaptive_a_a(
    rng: random.Random,
    trials: int,
    rule: StopRule,
    args: argparse.Namespace,
    alpha: float,
    rate: float | None,
) -> dict[str, int]:
    """False alarms per test over A/A cases, both sides adaptive, at ``rate`` (None: uniform)."""
    alarms = dict.fromkeys(TESTS, 0)
    for _ in range(trials):
        rate_now = rng.random() if rate is None else rate
        a = adaptive_run(rng, rate_now, rule, args.attempts, args.max_attempts)
        b = adaptive_run(rng, rate_now, rule, args.attempts, args.max_attempts)
        for name, test in TESTS.items():
            alarms[name] += test(a.count(1), len(a), b.count(1), len(b)) < alpha
    return alarms


def worst_look(rng: random.Random, trials: int, cap: int, alpha: float) -> dict[str, int]:
    """Look after every pair of attempts up to ``cap``; an alarm is any look with p < alpha."""
    alarms = dict.fromkeys(TESTS, 0)
    for _ in range(trials):
        rate = rng.choice([0.2, 0.5, 0.8, rng.random()])
        ca = cb = 0
        raised = dict.fromkeys(TESTS, False)
        for n in range(1, cap + 1):
            ca += rng.random() < rate
            cb += rng.random() < rate
            for name, test in TESTS.items():
                raised[name] = raised[name] or test(ca, n, cb, n) < alpha
            if all(raised.values()):
                break
        for name in TESTS:
            alarms[name] += raised[name]
    return alarms


def power(
    rng: random.Random, trials: int, n: int, before: float, after: float, alpha: float
) -> dict[str, int]:
    found = dict.fromkeys(TESTS, 0)
    for _ in range(trials):
        ca = sum(rng.random() < before for _ in range(n))
        cb = sum(rng.random() < after for _ in range(n))
        for name, test in TESTS.items():
            found[name] += test(ca, n, cb, n) < alpha
    return found


def side(label: str, orders: list[bytes], looked: bool) -> Side:
    return Side(
        label,
        1,
        [
            CaseFigures(f"c{i}", len(o), o.count(1), len(o) - o.count(1), 0, 1, order=o)
            for i, o in enumerate(orders)
        ],
        looked=looked,
    )


def suite_calls(a: list[bytes], b: list[bytes], alpha: Fraction) -> tuple[bool, bool]:
    """Whether the suite line names a change: by CMH (as if n were fixed), by the e-process."""
    confidence = 1 - alpha
    fixed = compare(side("A", a, False), side("B", b, False), confidence).suite.verdict
    looked = compare(side("A", a, True), side("B", b, True), confidence).suite.verdict
    return fixed is not ChangeVerdict.UNCLEAR, looked is not ChangeVerdict.UNCLEAR


def print_suite(rng: random.Random, rule: StopRule, args: argparse.Namespace) -> None:
    alpha = 1 - Fraction(args.confidence).limit_denominator(1000)
    cmh = anytime = 0
    for _ in range(args.suites):
        rates = [rng.uniform(0.3, 1.0) for _ in range(args.cases)]
        a = [adaptive_run(rng, r, rule, args.attempts, args.max_attempts) for r in rates]
        b = [adaptive_run(rng, r, rule, args.attempts, args.max_attempts) for r in rates]
        by_cmh, by_e = suite_calls(a, b, alpha)
        cmh, anytime = cmh + by_cmh, anytime + by_e
    print(f"\nThe suite line, {args.cases} cases, A/A, both sides adaptive: suites not unclear")
    print(f"  CMH on those n: {share(cmh, args.suites)}  e-process: {share(anytime, args.suites)}")
    print(f"Power at a fixed n, every case's odds x {args.odds:g}: suites called improved")
    for n in (int(x) for x in args.power_n.split(",")):
        cmh = anytime = 0
        for _ in range(args.suites):
            rates = [rng.uniform(0.3, 1.0) for _ in range(args.cases)]
            up = [r * args.odds / (1 - r + r * args.odds) for r in rates]
            a = [bytes(rng.random() < r for _ in range(n)) for r in rates]
            b = [bytes(rng.random() < r for _ in range(n)) for r in up]
            by_cmh, by_e = suite_calls(a, b, alpha)
            cmh, anytime = cmh + by_cmh, anytime + by_e
        print(
            f"  n {n:<4} CMH: {share(cmh, args.suites)}  e-process: {share(anytime, args.suites)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=4000)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--max-attempts", type=int, default=40)
    parser.add_argument("--require", type=Fraction, default=Fraction(8, 10))
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--before", type=float, default=0.3)
    parser.add_argument("--after", type=float, default=0.7)
    parser.add_argument("--power-n", default="10,20,40,80")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--suites", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--odds", type=float, default=2.0)
    args = parser.parse_args()
    alpha = 1 - args.confidence
    print(f"# {machine()}")
    print(
        f"# {args.trials} trials per row, confidence {args.confidence:g}, seed {args.seed}, "
        f"attempts {args.attempts}, max-attempts {args.max_attempts}"
    )
    rng = random.Random(args.seed)
    start = time.perf_counter()
    rules = {
        f"gate --require {float(args.require):g} (k 3)": stop_rule(args.require, 3),
        "precision 0.2 (no --require)": stop_rule(None, 3),
    }
    # The per-attempt rate whose pass@3 is exactly the line: where adaptive cases run longest.
    line = 1 - (1 - float(args.require)) ** (1 / 3)
    rates: dict[str, float | None] = {
        "uniform": None,
        f"at the line ({line:.3f})": line,
        "0.5": 0.5,
        "0.9": 0.9,
    }
    print(f"\nA/A, both sides adaptive: cases with p < {alpha:g} (goal <= {alpha:g})")
    for label, rule in rules.items():
        for rate_label, rate in rates.items():
            alarms = adaptive_a_a(rng, args.trials, rule, args, alpha, rate)
            print(
                f"  {label}, rate {rate_label:<20}"
                + "  ".join(f"{t}: {share(c, args.trials)}" for t, c in alarms.items())
            )
    alarms = worst_look(rng, args.trials, args.max_attempts, alpha)
    print(
        f"  {'looked at after every pair':<32}"
        + "  ".join(f"{t}: {share(c, args.trials)}" for t, c in alarms.items())
    )
    print(f"\nPower at a fixed n, one case {args.before:g} -> {args.after:g} (p < {alpha:g})")
    for n in (int(x) for x in args.power_n.split(",")):
        found = power(rng, args.trials, n, args.before, args.after, alpha)
        print(f"  n {n:<4}" + "  ".join(f"{t}: {share(c, args.trials)}" for t, c in found.items()))
    print_suite(rng, rules[next(iter(rules))], args)
    print(f"\n# {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
