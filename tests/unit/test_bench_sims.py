"""The simulations in ``bench/`` still run against today's code, at a tiny size.

Their figures back the promises in the docs (error rates, power, Runs saved); a change to a
core signature once left ``bench/budget_sim.py`` raising TypeError for two sessions
unnoticed. Each runs here as a user runs it, in its own process, small enough to take
seconds; the figures themselves are checked by the benches' own full runs, not here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SMALL = {
    "adaptive_sim": ["--cases", "5", "--trials", "2", "--fixed", "10", "--max-attempts", "10"],
    "budget_sim": ["--cases", "10", "--repeats", "1", "--budgets", "40"],
    "compare": ["--suites", "5", "--cases", "5"],
    "compare_adaptive": ["--trials", "20", "--suites", "5", "--cases", "3", "--power-n", "10"],
    "errored_bursts": ["--trials", "20"],
    "extend_sim": ["--reruns", "20", "--most", "20"],
    "family_wise": ["--cases", "3", "--suites", "20", "--n", "10"],
    "gate_stability": ["--reruns", "20", "--n", "5"],
    "suite_interval": ["--suites", "20", "--cases", "3"],
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_simulation_runs_to_its_table(name: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / f"{name}.py"), *SMALL[name]],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "|" in done.stdout or "  " in done.stdout, done.stdout  # a table was printed
