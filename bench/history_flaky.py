"""How long `passk-tui history --flaky` takes over a long nightly series.

A store in a temporary folder gets ``--evaluations`` finished evaluations of one agent
(``--cases`` cases, ``--attempts`` attempts each, 80% passing at random, a new version every
quarter of them); then `passk-tui history --flaky` runs ``--repeat`` times in its own
process and the wall time of each is printed, with the attempts read per second.

    python bench/history_flaky.py                       # 100 evaluations x 50 cases x 20
    python bench/history_flaky.py --evaluations 365 --cases 50 --attempts 10
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from passk_tui.core.attempt import AttemptRecord, Outcome  # noqa: E402
from passk_tui.core.inputs.settings import Settings  # noqa: E402
from passk_tui.core.run.cases import Case  # noqa: E402
from passk_tui.store import Store  # noqa: E402


def record(evaluation_id: str, case_index: int, attempt: int, passed: bool) -> AttemptRecord:
    """A finished attempt as a run stores it: a short answer, no usage."""
    return AttemptRecord(
        case_index=case_index, case=f"case-{case_index}", attempt=attempt,
        key=f"{evaluation_id}/{case_index}/{attempt}",
        outcome=Outcome.PASSED if passed else Outcome.WRONG,
        status="completed", output="an answer", reason=None, error=None,
        run_id=None, turn_id=None, started=0.0, ended=1.0, usage=None,
    )  # fmt: skip


def fill(evaluations: int, cases: int, attempts: int, seed: int) -> None:
    """The series, written as a run writes it (a batch of records per evaluation)."""
    rng = random.Random(seed)
    case_list = [Case(f"case-{i}", f"input {i}", None) for i in range(cases)]
    with Store.open() as store:
        for e in range(evaluations):
            evaluation_id = f"ev_bench_{e}"
            version = 1 + 4 * e // evaluations
            settings = Settings("nightly", version, "/bench/cases.toml", attempts=attempts, k=1)
            store.create_evaluation(
                evaluation_id, settings, case_list, "bench", created=1e9 + e * 86_400
            )
            store.write(
                evaluation_id,
                [
                    record(evaluation_id, i, a, rng.random() < 0.8)
                    for i in range(cases)
                    for a in range(1, attempts + 1)
                ],
            )
            store.finish(evaluation_id, "done")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=100)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--attempts", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        os.environ["PASSK_DATA_DIR"] = data
        fill(args.evaluations, args.cases, args.attempts, args.seed)
        env = os.environ | {"PYTHONPATH": str(ROOT)}
        walls = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "passk_tui", "history", "--flaky"],
                check=True, capture_output=True, env=env, cwd=ROOT,
            )  # fmt: skip
            walls.append(time.perf_counter() - start)
    total = args.evaluations * args.cases * args.attempts
    median = statistics.median(walls)
    print(
        f"{args.evaluations} evaluations x {args.cases} cases x {args.attempts} attempts "
        f"({total} attempts): history --flaky {', '.join(f'{w:.2f}' for w in walls)} s "
        f"(median {median:.2f} s, {total / median:,.0f} attempts/s)"
    )


if __name__ == "__main__":
    main()
