"""A 3-target matrix against three separate processes at the same total concurrency.

Runs ``passk-tui --headless --version 1,2,3`` (one process, ``--concurrency 6``) and then the
same three versions as three processes side by side (``--version N --concurrency 2`` each),
on a local ``command`` agent that sleeps ``--sleep`` seconds per attempt, and reports for
each: wall time, the CPU time of every passk-tui process and its agents (user + system, from
``wait4``), and how far apart the targets' finished counts got while running (sampled from
the store). Each variant runs ``--repeat`` times, alternating; the medians are printed.
Usage: ``PYTHONPATH=. python bench/matrix.py [--cases 10] [--attempts 20] [--sleep 0.1]``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = """\
import sys, time
sys.stdin.read()
time.sleep(float(sys.argv[1]))
print("ok")
"""
VERSIONS = (1, 2, 3)
TOTAL_CONCURRENCY = 6


def write_suite(folder: Path, cases: int, sleep: float) -> tuple[Path, Path]:
    """An agents file with versions 1..3 of a sleeping agent, and ``cases`` cases it passes."""
    (folder / "agent.py").write_text(AGENT)
    agents = folder / "agents.toml"
    agents.write_text(
        "".join(
            f'[agents.bench.versions.{v}]\ncommand = ["{sys.executable}", "agent.py", "{sleep}"]\n'
            for v in VERSIONS
        )
    )
    suite = folder / "cases.toml"
    suite.write_text(
        "".join(
            f'[[cases]]\nname = "c{i}"\ninput = "c{i}"\ncheck = {{ equals = "ok" }}\n'
            for i in range(cases)
        )
    )
    return agents, suite


def counts(db: Path) -> list[int]:
    """Attempts stored per evaluation (none while the store is not there yet)."""
    try:
        with sqlite3.connect(db, timeout=5) as connection:
            rows = connection.execute(
                "SELECT COUNT(a.attempt) FROM evaluations e LEFT JOIN attempts a"
                " ON a.evaluation_id = e.id GROUP BY e.id"
            ).fetchall()
    except sqlite3.Error:
        return []
    return [n for (n,) in rows]


def run(argvs: list[list[str]], data: Path) -> tuple[float, float, int]:
    """Start every argv at once; (wall seconds, CPU seconds of all and their children, the
    largest gap between targets' finished counts seen while all three were stored)."""
    env = {**os.environ, "PASSK_DATA_DIR": str(data)}
    start = time.perf_counter()
    processes = [
        subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for argv in argvs
    ]
    cpu, gap = 0.0, 0
    pending = {p.pid: p for p in processes}
    while pending:
        for pid, process in list(pending.items()):
            waited, status, usage = os.wait4(pid, os.WNOHANG)
            if waited:
                cpu += usage.ru_utime + usage.ru_stime
                assert os.waitstatus_to_exitcode(status) == 0, (
                    process.stderr and process.stderr.read()
                )
                del pending[pid]
        found = counts(data / "passk.db")
        if len(found) == len(VERSIONS):
            gap = max(gap, max(found) - min(found))
        time.sleep(0.05)
    return time.perf_counter() - start, cpu, gap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--attempts", type=int, default=20)
    parser.add_argument("--sleep", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="passk-bench-matrix-"))
    agents, suite = write_suite(folder, options.cases, options.sleep)
    base = [
        *(sys.executable, "-m", "passk_tui", "--headless", "--agents", str(agents)),
        *("--agent", "bench", "--cases", str(suite), "--attempts", str(options.attempts)),
    ]
    each = TOTAL_CONCURRENCY // len(VERSIONS)
    variants = {
        "matrix (1 process)": [
            [*base, "--version", "1,2,3", "--concurrency", str(TOTAL_CONCURRENCY)]
        ],
        "3 processes": [[*base, "--version", str(v), "--concurrency", str(each)] for v in VERSIONS],
    }
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in variants}
    for round_ in range(options.repeat):
        for name, argvs in variants.items():
            data = folder / f"{name.split()[0]}-{round_}"
            data.mkdir()
            results[name].append(run(argvs, data))
    attempts = options.cases * options.attempts * len(VERSIONS)
    ideal = attempts * options.sleep / TOTAL_CONCURRENCY
    print(
        f"{len(VERSIONS)} targets x {options.cases} cases x {options.attempts} attempts "
        f"({attempts} attempts, {options.sleep} s each), total concurrency {TOTAL_CONCURRENCY}; "
        f"ideal wall {ideal:.2f} s; medians of {options.repeat}"
    )
    print(f"{'variant':<20}  {'wall s':>7}  {'CPU s':>6}  {'CPU ms/attempt':>14}  largest gap")
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        gap = max(r[2] for r in runs)
        print(f"{name:<20}  {wall:>7.2f}  {cpu:>6.2f}  {cpu / attempts * 1000:>14.2f}  {gap}")


if __name__ == "__main__":
    main()
