"""Under a Run budget, the adaptive policy's order against round-robin: cases decided per Run.

The engine's own policies do the choosing: ``AdaptivePolicy`` with ``closest_first``
(what a budget turns on: the next attempt goes to the undecided case its expected
path says is closest to settling, ``core.stats.gating.settling``) and without (the least
sampled undecided case first, round-robin), each held to the same ``--budget-runs``
by ``BudgetedPolicy``. The agent is ``adaptive_sim``'s simulated one (an attempt's
outcome a pure function of seed, case and attempt number, so both orders see the
same outcomes for the same attempts) on its simulated suite; ``--concurrency``
attempts are in flight at once and land in random order. Counted per order: the
cases decided (pass or fail; capped and unfinished ones are not), the Runs used,
and the decided verdicts that are wrong against each case's true pass@k.

    python bench/budget_sim.py      # --cases 100 --require 0.8 --k 1 --attempts 3 --max-attempts 60
"""

from __future__ import annotations

import argparse
import random
import statistics
from fractions import Fraction

from adaptive_sim import SimulatedAgent, SimulatedCase, simulated_suite
from harness import machine

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.budget import BudgetedPolicy
from passk_tui.core.run.policy import AdaptivePolicy, Pause, Slot
from passk_tui.core.run.sampling import case_stop_rule


def simulate(
    suite: list[SimulatedCase],
    agent: SimulatedAgent,
    settings: Settings,
    closest_first: bool,
    concurrency: int,
    rng: random.Random,
) -> tuple[int, int, int]:
    """One evaluation under the budget: (cases decided, Runs used, decided verdicts wrong)."""
    assert settings.max_attempts is not None and settings.require is not None
    rule = case_stop_rule(settings, len(suite))
    inner = AdaptivePolicy(
        len(suite),
        settings.attempts,
        settings.max_attempts,
        rule.reason,
        closest_first=closest_first,
    )
    policy = BudgetedPolicy(inner, settings)
    in_flight: list[Slot] = []
    done = False
    while True:
        while not done and len(in_flight) < concurrency:
            slot = policy.next()
            if slot is Pause.DONE:
                done = True
            if isinstance(slot, Pause):
                break
            in_flight.append(slot)
        if not in_flight:
            break
        slot = in_flight.pop(rng.randrange(len(in_flight)))
        case = suite[slot.case_index]
        passed = agent.passes(case, slot.attempt)
        policy.landed(_record(slot, case.name, passed))
    decided = wrong = 0
    for index, reason in inner.stop_reasons.items():
        if not reason.decided:
            continue
        decided += 1
        truth = 1 - (1 - suite[index].rate) ** settings.k >= settings.require
        wrong += (reason.kind == "decided pass") != truth
    return decided, policy.runs_started, wrong


def _record(slot: Slot, name: str, passed: bool) -> AttemptRecord:
    return AttemptRecord(
        slot.case_index, name, slot.attempt, "", Outcome.PASSED if passed else Outcome.WRONG,
        "completed", None, None, None, None, None, 0.0, 0.0,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--require", default="0.8")
    parser.add_argument("--k", type=int, default=1)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--max-attempts", type=int, default=60)
    parser.add_argument("--budgets", default="400,600,900,1500")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(
        f"{args.cases} cases (adaptive_sim's suite), --require {args.require} --k {args.k} "
        f"--attempts {args.attempts} --max-attempts {args.max_attempts}, "
        f"{args.concurrency} in flight, {args.repeats} suites and agents (seeds from {args.seed})"
    )
    print("budget  order             decided (mean)  Runs used  decided per 100 Runs  wrong")
    for budget in (int(b) for b in args.budgets.split(",")):
        settings = Settings(
            agent="sim",
            version=1,
            cases_path="-",
            attempts=args.attempts,
            k=args.k,
            require=Fraction(args.require),
            max_attempts=args.max_attempts,
            budget_runs=budget,
        )
        for label, closest in (("round-robin", False), ("closest first", True)):
            decided, runs, wrong = [], [], 0
            for repeat in range(args.repeats):
                seed = args.seed + repeat
                suite = simulated_suite(args.cases, random.Random(seed))
                found = simulate(
                    suite, SimulatedAgent(seed), settings, closest, args.concurrency,
                    random.Random(seed * 7919),
                )  # fmt: skip
                decided.append(found[0])
                runs.append(found[1])
                wrong += found[2]
            per_run = 100 * sum(decided) / sum(runs)
            print(
                f"{budget:<6}  {label:<16}  {statistics.mean(decided):>14.1f}  "
                f"{statistics.mean(runs):>9.0f}  {per_run:>20.2f}  {wrong:>5}"
            )


if __name__ == "__main__":
    main()
