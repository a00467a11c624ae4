"""Adaptive attempts against a fixed n, at the level of counts: Runs used and verdicts right, per case.

A simulated suite (50% of cases always pass, 20% never, 30% with rates spread
over (0, 1)) is sampled two ways: fixed n (every case gets ``--fixed``
attempts, judged by the Clopper-Pearson confident gate) and adaptive (every
case first gets ``--attempts``, then one more at a time until the stop rule
decides it or it has ``--max-attempts``, judged by the anytime-valid gate).
Each verdict is checked against the true pass@k of its case.

    python bench/adaptive_sim.py          # --cases 200 --require 0.8 --k 3 --attempts 3 --max-attempts 40 --fixed 40

Three parts, kept apart so that the engine and its policy can replace the
middle one: the simulated agent (``SimulatedAgent``: an attempt's outcome is
a pure function of (seed, case, attempt number), like an attempt's key, so both
modes and any resume see the same outcomes), the drivers that choose which
attempts to make (``run_fixed``, ``run_adaptive``: what the engine does with
``FixedPolicy`` and ``AdaptivePolicy``), and the per-case bookkeeping
(``judge``, ``Tally``), which reads only each case's final counts.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from harness import machine

from passk_tui.core.stats.gating.stopping import StopReason, StopRule, capped_reason, stop_rule
from passk_tui.core.stats.rates.intervals import (
    CLOPPER_PEARSON,
    IntervalMethod,
    case_intervals,
    gate_verdict,
)
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE


@dataclass(frozen=True, slots=True)
class SimulatedCase:
    """A case of the simulated suite, with the per-attempt pass rate the agent has on it."""

    name: str
    group: str
    rate: float


def simulated_suite(cases: int, rng: random.Random) -> list[SimulatedCase]:
    """50% always pass, 20% never, the rest at rates spread evenly (and at random) over (0, 1)."""
    always, never = cases // 2, cases // 5
    flaky = cases - always - never
    rates = [("always", 1.0)] * always + [("never", 0.0)] * never
    rates += [("flaky", (j + rng.uniform(1e-9, 1.0)) / flaky) for j in range(flaky)]
    return [SimulatedCase(f"case-{i:04d}", group, rate) for i, (group, rate) in enumerate(rates)]


@dataclass(frozen=True, slots=True)
class SimulatedAgent:
    """An agent whose attempt (case, number) passes with the case's rate, the same on every asking."""

    seed: int

    def passes(self, case: SimulatedCase, attempt: int) -> bool:
        digest = hashlib.blake2b(f"{self.seed}/{case.name}/{attempt}".encode(), digest_size=8)
        return int.from_bytes(digest.digest()) / 2**64 < case.rate


@dataclass(frozen=True, slots=True)
class CaseResult:
    """What a driver leaves of one case: its outcomes by attempt number and, adaptive, why it stopped."""

    case: SimulatedCase
    order: bytes
    reason: str | None = None

    @property
    def passed(self) -> int:
        return self.order.count(1)

    @property
    def n(self) -> int:
        return len(self.order)


def run_fixed(suite: list[SimulatedCase], agent: SimulatedAgent, n: int) -> list[CaseResult]:
    """Every case gets attempts 1..n."""
    return [
        CaseResult(case, bytes(agent.passes(case, a) for a in range(1, n + 1))) for case in suite
    ]


def run_adaptive(
    suite: list[SimulatedCase], agent: SimulatedAgent, rule: StopRule, attempts: int, cap: int
) -> list[CaseResult]:
    """Every case gets ``attempts``, then one at a time until ``rule`` names a reason or it has ``cap``."""
    results = []
    for case in suite:
        order, reason = bytearray(), None
        for n in range(1, cap + 1):
            order.append(agent.passes(case, n))
            if n >= attempts and (reason := rule(bytes(order))) is not None:
                break
        results.append(CaseResult(case, bytes(order), reason or capped_reason(cap)))
    return results


@dataclass(frozen=True, slots=True)
class Gate:
    """The question every case is asked: is pass@k at least X, at level C, by which interval."""

    require: Fraction
    k: int
    confidence: float
    method: IntervalMethod

    def judge(self, result: CaseResult) -> str:
        """``right``, ``wrong`` (a verdict on the wrong side of X given the true pass@k) or ``undecided``."""
        shown = case_intervals(
            result.passed, result.n, self.k, self.confidence, self.method, result.order
        )
        verdict = gate_verdict(shown.pass_at_k, self.require)
        if verdict == "undecided":
            return verdict
        truly_passes = 1 - (1 - result.case.rate) ** self.k >= self.require
        return "right" if (verdict == "pass") == truly_passes else "wrong"


def decided_by_n(results: list[CaseResult], gate: Gate) -> list[int]:
    """How many of these cases the gate decides on their first n attempts, for n = 1..len."""
    most = max((r.n for r in results), default=0)
    counts = [0] * most
    for result in results:
        for n in range(1, result.n + 1):
            prefix = CaseResult(result.case, result.order[:n])
            counts[n - 1] += gate.judge(prefix) != "undecided"
    return counts


@dataclass
class Tally:
    """One mode's counts over every simulated suite: Runs, verdicts and attempts by group, stop reasons."""

    runs: list[int] = field(default_factory=list)
    verdicts: Counter[tuple[str, str]] = field(default_factory=Counter)
    attempts: Counter[str] = field(default_factory=Counter)
    stops: Counter[str] = field(default_factory=Counter)
    #: Cases decided at their stop that the gate reads undecided at their final n.
    moved_back: int = 0

    def add(self, results: list[CaseResult], gate: Gate) -> None:
        self.runs.append(sum(r.n for r in results))
        for result in results:
            verdict = gate.judge(result)
            self.verdicts[result.case.group, verdict] += 1
            self.attempts[result.case.group] += result.n
            if result.reason is not None:
                reason = StopReason.parse(result.reason)
                self.stops[reason.kind] += 1
                self.moved_back += reason.decided and verdict == "undecided"

    def count(self, verdict: str, group: str | None = None) -> int:
        """Cases with ``verdict`` (in ``group``, or in all)."""
        return sum(n for (g, v), n in self.verdicts.items() if v == verdict and group in (None, g))

    def cases(self, group: str | None = None) -> int:
        return sum(self.count(v, group) for v in ("right", "wrong", "undecided"))


def _share(count: int, total: int) -> str:
    """A count as a share with its exact 95% upper bound: ``3 (0.12%, <= 0.31%)``."""
    if total == 0:
        return "-"
    upper = CLOPPER_PEARSON.rate(count, total, 0.95).high
    return f"{count} ({count / total:.2%}, <= {upper:.2%})"


def _row(label: str, tally: Tally, group: str | None, runs: str) -> str:
    wrong, cases = tally.count("wrong", group), tally.cases(group)
    decided = wrong + tally.count("right", group)
    return (
        f"| {label} | {runs} | {decided} of {cases} | {_share(wrong, decided)} "
        f"| {_share(wrong, cases)} | {tally.count('undecided', group)} |"
    )


def report(fixed: Tally, adaptive: Tally, fixed_label: str, adaptive_label: str) -> str:
    """The markdown tables docs/benchmarks/notebook.md shows: all cases, then the flaky ones alone."""
    share = sum(adaptive.runs) / sum(fixed.runs)
    lines = []
    for title, group, runs_title in (
        ("all cases", None, "Runs per suite, of fixed-n's"),
        ("flaky cases only", "flaky", "attempts per case"),
    ):
        lines += [
            f"| {title} | {runs_title} | decided | wrong among decided | wrong per case | undecided |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for label, tally, of_fixed in (
            (fixed_label, fixed, "100%"),
            (adaptive_label, adaptive, f"{share:.1%}"),
        ):
            if group is None:
                runs = statistics.median(tally.runs)
                cell = f"{runs:.0f} ({min(tally.runs)}-{max(tally.runs)}), {of_fixed}"
            else:
                cell = f"{tally.attempts[group] / tally.cases(group):.1f}"
            lines.append(_row(label, tally, group, cell))
        lines.append("")
    groups = ", ".join(
        f"{group} {adaptive.attempts[group] / adaptive.cases(group):.1f}"
        for group in adaptive.attempts
    )
    stops = ", ".join(f"{kind} {count}" for kind, count in sorted(adaptive.stops.items()))
    lines.append(
        f"Adaptive attempts per case, by group: {groups}. Stop reasons: {stops}. Decided at "
        f"the stop but undecided at the final n: {adaptive.moved_back}."
    )
    return "\n".join(lines)


def suite_parser(doc: str | None) -> argparse.ArgumentParser:
    """The flags both adaptive benches share: the suite, the gate and the two modes' attempts."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n", 1)[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--require", type=Fraction, default=Fraction(4, 5))
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--max-attempts", type=int, default=40)
    parser.add_argument("--fixed", type=int, default=40, help="fixed-n's attempts per case")
    parser.add_argument("--confidence", type=float, default=0.95)
    return parser


def main() -> None:
    parser = suite_parser(__doc__)
    parser.add_argument("--trials", type=int, default=100, help="simulated suites")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rule = stop_rule(args.require, args.k, confidence=args.confidence)
    fixed_gate = Gate(args.require, args.k, args.confidence, CLOPPER_PEARSON)
    adaptive_gate = Gate(args.require, args.k, args.confidence, CONFIDENCE_SEQUENCE)
    fixed, adaptive = Tally(), Tally()
    # Drawn in the order the tables above were made with, so seed 1 gives them again.
    suites = []
    for _ in range(args.trials):
        suites.append((simulated_suite(args.cases, rng), SimulatedAgent(rng.getrandbits(32))))
    decided = [0] * args.max_attempts
    for suite, agent in suites:
        fixed.add(run_fixed(suite, agent, args.fixed), fixed_gate)
        adaptive.add(
            run_adaptive(suite, agent, rule, args.attempts, args.max_attempts), adaptive_gate
        )
        for n, count in enumerate(
            decided_by_n(run_fixed(suite, agent, args.max_attempts), fixed_gate)
        ):
            decided[n] += count
    # The fixed n that decides as many cases as adaptive did: the fair price to compare with.
    wanted = adaptive.count("right") + adaptive.count("wrong")
    matched_n = next((n + 1 for n, count in enumerate(decided) if count >= wanted), None)
    print(f"machine: {machine()}")
    print(
        f"{args.trials} suites of {args.cases} cases, --require {float(args.require)} --k {args.k} "
        f"--confidence {args.confidence}, seed {args.seed}\n"
    )
    print(
        report(
            fixed,
            adaptive,
            f"fixed n = {args.fixed} (Clopper-Pearson)",
            f"adaptive --attempts {args.attempts} --max-attempts {args.max_attempts} (anytime-valid)",
        )
    )
    print("\ncases decided by a fixed n (Clopper-Pearson), n = 1..max attempts:")
    print(", ".join(f"{n + 1}: {count}" for n, count in enumerate(decided)))
    if matched_n is None:
        print(f"\nno fixed n up to {args.max_attempts} decides {wanted} cases")
        return
    matched = Tally()
    for suite, agent in suites:
        matched.add(run_fixed(suite, agent, matched_n), fixed_gate)
    print(
        f"\nagainst the smallest fixed n that decides as many cases ({wanted}): n = {matched_n}\n"
    )
    print(
        report(
            matched,
            adaptive,
            f"fixed n = {matched_n} (Clopper-Pearson)",
            f"adaptive --attempts {args.attempts} --max-attempts {args.max_attempts} (anytime-valid)",
        )
    )
    ratio = sum(matched.runs) / sum(adaptive.runs)
    print(
        f"\nadaptive spends 1/{ratio:.2f} of the Runs of the fixed n that decides as many cases "
        f"({sum(adaptive.runs) / len(suites):.0f} against {sum(matched.runs) / len(suites):.0f} "
        "per suite)"
    )


if __name__ == "__main__":
    main()
