"""tau-bench's published trajectories through ``passk-tui import tau-bench``: its leaderboard's
pass^k from our exported per-case curves, beside tau-bench's own formula on the same file.

tau-bench cannot run here (it needs paid model APIs); its repository publishes the trials
of its leaderboard runs (``historical_trajectories/*.json``). Its ``display_metrics`` counts
a trial a success when its reward is within 1e-6 of 1 and averages C(c, k) / C(n, k) over
tasks; the mean of our exact per-case pass^k must equal it for every k (0 mismatches).

    git clone https://github.com/sierra-research/tau-bench
    python bench/imports/check_tau.py tau-bench/historical_trajectories/gpt-4o-airline.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from fractions import Fraction
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def theirs(path: Path) -> dict[int, float]:
    """tau-bench's display_metrics, as its run.py computes it."""
    results = json.loads(path.read_text())
    trials = len({r["trial"] for r in results})
    passes: Counter[int] = Counter()
    for r in results:
        passes[r["task_id"]] += 1 - 1e-6 <= r["reward"] <= 1 + 1e-6
    tasks = {r["task_id"] for r in results}
    return {
        k: sum(comb(passes[t], k) / comb(trials, k) for t in tasks) / len(tasks)
        for k in range(1, trials + 1)
    }


def ours(path: Path, k: int) -> dict[int, Fraction]:
    with tempfile.TemporaryDirectory() as data:
        out = Path(data) / "out.json"
        env = {**os.environ, "PASSK_DATA_DIR": data, "PYTHONPATH": str(ROOT)}
        argv = [sys.executable, "-m", "passk_tui", "import", "tau-bench", str(path)]
        subprocess.run([*argv, "--k", str(k), "--export", str(out)], env=env, check=False,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        cases = json.loads(out.read_text())["cases"]
    return {
        j: sum(Fraction(c["curve"]["pass_hat_k"][j - 1]) for c in cases) / len(cases)
        for j in range(1, k + 1)
    }


def main() -> None:
    mismatches = 0
    for name in sys.argv[1:]:
        path = Path(name)
        expected = theirs(path)
        found = ours(path, max(expected))
        for k, value in expected.items():
            same = abs(float(found[k]) - value) < 1e-12
            mismatches += not same
            print(f"{path.name} pass^{k}: tau-bench {value:.3f}  passk-tui {float(found[k]):.3f}"
                  f" ({found[k]}){'' if same else '  MISMATCH'}")  # fmt: skip
    print(f"{mismatches} mismatches")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
