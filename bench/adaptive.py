"""Adaptive attempts through the real engine and policy, against a fixed n; then over HTTP.

The suite, the simulated agent and the per-case bookkeeping are
``bench/adaptive_sim.py``'s (an attempt's outcome is a pure function of (seed,
case, attempt number)); what changes is the driver: every attempt goes through
``core.engine.Evaluation`` with the policy the settings name
(``core.sampling.sampling_policy``: ``FixedPolicy`` for n = 40,
``AdaptivePolicy`` for ``--attempts 3 --max-attempts 40``), in flight at
``--concurrency`` at once, so attempts of a case still in flight when it is
decided finish and count, as they do for a user.

Part 1, in process: an in-process Target answers at once. Part 2, over HTTP:
the same suite (once) against the test stack (``tests/support/stack_server.py``, in a
thread, Turns after ``--latency`` s) at concurrency 20, sampling
``Progress.in_flight`` every 10 ms together with whether some undecided case
was still below the cap: the policy must keep every worker busy while it is.

    python bench/adaptive.py                 # 10 suites in process, then 1 over HTTP
    python bench/adaptive.py --suites 2 --latency 0.02
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adaptive_sim import (  # noqa: E402
    CaseResult,
    Gate,
    SimulatedAgent,
    SimulatedCase,
    Tally,
    report,
    simulated_suite,
    suite_parser,
)
from harness import machine, warn_if_busy  # noqa: E402

from passk_tui.core.attempt import Turn  # noqa: E402
from passk_tui.core.checks.kinds import compile_check  # noqa: E402
from passk_tui.core.inputs.settings import Settings  # noqa: E402
from passk_tui.core.run.attempt_keys import PlannedAttempt  # noqa: E402
from passk_tui.core.run.cases import Case  # noqa: E402
from passk_tui.core.run.engine import Evaluation  # noqa: E402
from passk_tui.core.run.sampling import sampling_policy  # noqa: E402
from passk_tui.core.run.target import RetryNotice  # noqa: E402
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON  # noqa: E402
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE  # noqa: E402
from passk_tui.evaluations.lookups import make_target  # noqa: E402
from tests.support.stack_server import StackScript, StackServer, TurnScript  # noqa: E402

CHECK = {"equals": "yes"}


class SimulatedTarget:
    """An in-process Target: attempt (case, number) answers "yes" when the agent passes it."""

    def __init__(self, suite: list[SimulatedCase], agent: SimulatedAgent) -> None:
        self.by_name = {case.name: case for case in suite}
        self.agent = agent

    async def prepare(self) -> None:
        return None

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        await asyncio.sleep(0)  # let the other workers in, as a real Run would
        case = self.by_name[attempt.case.name]
        return Turn("completed", output="yes" if self.agent.passes(case, attempt.attempt) else "no")

    async def aclose(self) -> None:
        return None


def engine_cases(suite: list[SimulatedCase]) -> list[Case]:
    check = compile_check(CHECK, "bench", base_dir=ROOT)
    return [Case(case.name, case.name, check, CHECK) for case in suite]


def settings_for(args: argparse.Namespace, adaptive: bool, stack: str | None = None) -> Settings:
    return Settings(
        agent="demo",
        version=1,
        cases_path="bench",
        attempts=args.attempts if adaptive else args.fixed,
        k=args.k,
        require=args.require,
        concurrency=args.concurrency,
        stack=stack,
        max_attempts=args.max_attempts if adaptive else None,
        confidence=args.confidence,
    )


def results_of(evaluation: Evaluation, suite: list[SimulatedCase]) -> list[CaseResult]:
    reasons = getattr(evaluation.policy, "stop_reasons", {})
    return [
        CaseResult(
            case,
            evaluation.progress.figures(i).order or b"",
            str(reasons[i]) if i in reasons else None,
        )
        for i, case in enumerate(suite)
    ]


async def run_engine(
    suite: list[SimulatedCase], settings: Settings, target, label: str
) -> tuple[Evaluation, float]:
    cases = engine_cases(suite)
    policy = sampling_policy(settings, len(cases))
    evaluation = Evaluation(f"ev_bench_{label}", cases, settings, target, policy=policy)
    started = time.perf_counter()
    assert await evaluation.run() == "done", evaluation.error
    return evaluation, time.perf_counter() - started


async def sample_in_flight(evaluation: Evaluation, cap: int, samples: list[tuple[int, bool]]):
    """Every 10 ms: (Runs in flight, whether an undecided case is still below the cap)."""
    policy = evaluation.policy
    reasons = getattr(policy, "stop_reasons", {})
    count = len(evaluation.cases)
    while True:
        await asyncio.sleep(0.01)
        open_work = any(i not in reasons and policy.planned(i) < cap for i in range(count))
        samples.append((evaluation.progress.in_flight, open_work))


async def over_http(args: argparse.Namespace, suite: list[SimulatedCase], agent: SimulatedAgent):
    def turn(case: str, attempt: int) -> TurnScript:
        passes = agent.passes(next(c for c in suite if c.name == case), attempt)
        return TurnScript(output="yes" if passes else "no", latency=args.latency)

    with StackServer(script=StackScript(turns=turn)) as stack:
        settings = settings_for(args, adaptive=True, stack=stack.url)
        target = make_target(settings, "secret-key", "ev_bench_http")
        cases = engine_cases(suite)
        evaluation = Evaluation(
            "ev_bench_http", cases, settings, target, policy=sampling_policy(settings, len(cases))
        )
        samples: list[tuple[int, bool]] = []
        sampler = asyncio.get_running_loop().create_task(
            sample_in_flight(evaluation, args.max_attempts, samples)
        )
        started = time.perf_counter()
        try:
            assert await evaluation.run() == "done", evaluation.error
        finally:
            sampler.cancel()
            await target.aclose()
        seconds = time.perf_counter() - started
        stats = stack.stats()
    return evaluation, seconds, samples, stats


def main() -> None:
    parser = suite_parser(__doc__)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--suites", type=int, default=10, help="simulated suites in process")
    parser.add_argument("--latency", type=float, default=0.05, help="stack Turn latency, s")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    warn_if_busy()
    rng = random.Random(args.seed)
    fixed_gate = Gate(args.require, args.k, args.confidence, CLOPPER_PEARSON)
    adaptive_gate = Gate(args.require, args.k, args.confidence, CONFIDENCE_SEQUENCE)
    fixed, adaptive = Tally(), Tally()
    seconds = {"fixed": 0.0, "adaptive": 0.0}
    for index in range(args.suites):
        suite, agent = simulated_suite(args.cases, rng), SimulatedAgent(rng.getrandbits(32))
        for mode, tally, gate in (
            ("fixed", fixed, fixed_gate),
            ("adaptive", adaptive, adaptive_gate),
        ):
            settings = settings_for(args, adaptive=mode == "adaptive")
            target = SimulatedTarget(suite, agent)
            evaluation, took = asyncio.run(run_engine(suite, settings, target, f"{mode}{index}"))
            seconds[mode] += took
            tally.add(results_of(evaluation, suite), gate)
    print(f"machine: {machine()}")
    print(
        f"{args.suites} suites of {args.cases} cases through the engine at concurrency "
        f"{args.concurrency}, --require {float(args.require)} --k {args.k} --confidence "
        f"{args.confidence}, seed {args.seed}; engine wall time fixed {seconds['fixed']:.1f} s, "
        f"adaptive {seconds['adaptive']:.1f} s\n"
    )
    print(
        report(
            fixed,
            adaptive,
            f"fixed n = {args.fixed} (Clopper-Pearson)",
            f"adaptive --attempts {args.attempts} --max-attempts {args.max_attempts} "
            "(anytime-valid)",
        )
    )

    suite, agent = simulated_suite(args.cases, rng), SimulatedAgent(rng.getrandbits(32))
    evaluation, took, samples, stats = asyncio.run(over_http(args, suite, agent))
    busy = [n for n, open_work in samples if open_work]
    tail = [n for n, open_work in samples if not open_work]
    at_cap = sum(n == args.concurrency for n in busy)
    print(
        f"\nover HTTP (test stack, Turns after {args.latency:g} s, concurrency "
        f"{args.concurrency}): {evaluation.progress.finished:,} attempts in {took:.1f} s; "
        f"Runs created {stats.runs_created:,}, most per key {stats.max_runs_per_key}, stack "
        f"in-flight peak {stats.in_flight_peak}"
    )
    if busy:
        print(
            f"while an undecided case was below the cap ({len(busy)} samples, 10 ms apart): "
            f"in flight {at_cap / len(busy):.1%} of samples at {args.concurrency}, median "
            f"{statistics.median(busy):g}, min {min(busy)}"
        )
    if tail:
        print(
            f"after (only in-flight attempts of decided or capped cases left, {len(tail)} "
            f"samples): in flight median {statistics.median(tail):g}"
        )


if __name__ == "__main__":
    main()
