"""How often the gate's verdict is wrong: the seed's point gate beside the confident gate.

Simulated agents with known per-attempt pass rates p run through the real
engine (``Evaluation`` with an in-process target whose answer is right with
chance p) and the real gate (``core.gate.read``). One evaluation of R cases is
R reruns of a one-case suite: each case's attempts are independent draws, so
the share of cases given a wrong verdict is the share of reruns that would be.

A verdict is wrong when it disagrees with the true pass@k = 1-(1-p)^k against
the gate (true pass@k >= X should pass). The confident gate's misses should be
``undecided``, never a wrong pass or fail: its wrong-verdict rate should be at
most (1-C)/2 at every p.

    python bench/gate_stability.py                    # 1,000 reruns, n in 5 10 20, k 3, X 0.8
    python bench/gate_stability.py --reruns 200 --n 5  # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness import machine, warn_if_busy  # noqa: E402

from passk_tui.core.attempt import Turn  # noqa: E402
from passk_tui.core.checks.kinds import compile_check  # noqa: E402
from passk_tui.core.inputs.settings import Settings  # noqa: E402
from passk_tui.core.run.attempt_keys import PlannedAttempt  # noqa: E402
from passk_tui.core.run.cases import Case  # noqa: E402
from passk_tui.core.run.engine import Evaluation  # noqa: E402
from passk_tui.core.run.target import RetryNotice  # noqa: E402
from passk_tui.core.stats.gating.gate import Reading, read  # noqa: E402

RATES = (0.1, 0.35, 0.42, 0.5, 0.6, 0.9, 1.0)


class CoinAgent:
    """An in-process Target whose answer is right with chance ``rate``, from a seeded generator."""

    def __init__(self, rate: float, seed: int) -> None:
        self.rate = rate
        self.rng = random.Random(seed)

    async def prepare(self) -> None:
        """Nothing to check: the agent is this object."""

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        return Turn("completed", output="right" if self.rng.random() < self.rate else "wrong")

    async def aclose(self) -> None:
        """Nothing to release."""


def run_suite(rate: float, n: int, k: int, reruns: int, seed: int) -> list:
    """One evaluation of ``reruns`` identical cases through the engine; their figures."""
    check = compile_check({"equals": "right"}, "bench", ROOT)
    cases = [Case(f"rerun-{i}", "q", check, {"equals": "right"}) for i in range(reruns)]
    settings = Settings("coin", 1, "bench", attempts=n, k=k, concurrency=64, timeout=60.0)
    evaluation = Evaluation(f"ev_bench_{seed}", cases, settings, CoinAgent(rate, seed))
    status = asyncio.run(evaluation.run())
    assert status == "done", status
    return evaluation.progress.all_figures()


def wrong_share(reading: Reading, truth: str) -> tuple[float, float]:
    """(share of cases with a wrong pass/fail verdict, share undecided)."""
    total = len(reading.cases)
    wrong = sum(c.verdict in ("pass", "fail") and c.verdict != truth for c in reading.cases)
    return wrong / total, len(reading.undecided) / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=1000)
    parser.add_argument("--n", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--require", default="0.8")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--rates", type=float, nargs="+", default=list(RATES))
    args = parser.parse_args()
    require = Fraction(args.require)
    warn_if_busy()
    print(machine())
    goal = (1 - args.confidence) / 2
    print(
        f"{args.reruns} reruns per row, k={args.k}, --require {args.require}, "
        f"--confidence {args.confidence:g} (goal: confident wrong <= {goal:.3f})\n"
    )
    print("| p | true pass@k | n | seed gate wrong | confident gate wrong | confident undecided |")
    print("| --- | --- | --- | --- | --- | --- |")
    started = time.monotonic()
    worst = 0.0
    for rate in args.rates:
        true = 1 - (1 - rate) ** args.k
        truth = "pass" if true >= require else "fail"
        for n in args.n:
            seed = int(rate * 1000) * 100 + n
            figures = run_suite(rate, n, args.k, args.reruns, seed)
            seed_wrong, _ = wrong_share(read(figures, require), truth)
            confident_wrong, undecided = wrong_share(read(figures, require, args.confidence), truth)
            worst = max(worst, confident_wrong)
            print(
                f"| {rate:g} | {true:.3f} ({truth}) | {n} | {seed_wrong:.3f} | "
                f"{confident_wrong:.3f} | {undecided:.3f} |"
            )
    verdict = "holds" if worst <= goal else "MISSED"
    print(f"\nworst confident wrong-verdict rate {worst:.3f} vs goal {goal:.3f}: {verdict}")
    print(f"{time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
