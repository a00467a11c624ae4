"""Attempts per second over Ray on 1 and 2 nodes, against the local executor.

    PYTHONPATH=. python bench/ray_nodes.py [--cases 8] [--attempts 3] [--seconds 0.5]

A `command` agent that sleeps ``--seconds`` and answers: what an attempt costs when the
agent waits (a model, a tool) rather than computes. Runs, each a fresh evaluation:
local with --concurrency 1 and 2; Ray with 1 node (1 CPU) and --concurrency 2 (so one at a
time: the node's CPU is the limit); Ray with 2 nodes (1 CPU each) and --concurrency 2. The
cluster is made as tests/ray makes it (`ray start`, a head then a worker, stopped by their
process groups). Attempts per second are counted from the first attempt's start to the
last one's end (Ray's start-up and joining are not attempts); the overhead per attempt is
the time per attempt on Ray minus the same locally, one at a time (1 / attempts per second).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from harness import ROOT, machine

sys.path.insert(0, str(ROOT))
from tests.ray.cluster import Cluster, project_run, start_cluster

AGENT = "import sys, time\nsys.stdin.read()\ntime.sleep(SECONDS)\nprint('ok')\n"


def project(folder: Path, cases: int, seconds: float) -> None:
    (folder / "agent.py").write_text(AGENT.replace("SECONDS", repr(seconds)))
    argv = json.dumps([sys.executable, "agent.py"])
    (folder / "agents.toml").write_text(f"[agents.a.versions.1]\ncommand = {argv}\n")
    (folder / "cases.toml").write_text(
        "".join(
            f'[[cases]]\nname = "c{n}"\ninput = "x"\ncheck = {{ equals = "ok" }}\n'
            for n in range(cases)
        )
    )


def run(folder: Path, env: dict[str, str], attempts: int, *flags: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as data:
        export = Path(data) / "out.json"
        done = subprocess.run(
            project_run(
                folder, "--attempts", str(attempts), "--k", "1", "--export", str(export), *flags
            ),
            env={**env, "PASSK_DATA_DIR": data},
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(export.read_text())["attempts"]


def rate(attempts: list[dict]) -> float:
    start = min(datetime.fromisoformat(a["started"]) for a in attempts)
    end = max(datetime.fromisoformat(a["ended"]) for a in attempts)
    return len(attempts) / (end - start).total_seconds()


def median_duration(attempts: list[dict]) -> float:
    return statistics.median(a["duration"] for a in attempts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "project"
        folder.mkdir()
        project(folder, args.cases, args.seconds)
        home = Path(tmp) / "home"
        home.mkdir()
        cluster: Cluster = start_cluster(home)
        try:
            env, ray = cluster.env, ("--executor", "ray", "--ray-address", cluster.address)
            rows = {
                "local, --concurrency 1": run(folder, env, args.attempts, "--concurrency", "1"),
                "local, --concurrency 2": run(folder, env, args.attempts, "--concurrency", "2"),
                "ray, 1 node, one at a time": run(
                    folder, env, args.attempts, "--concurrency", "1", *ray
                ),
                "ray, 1 node (1 CPU), --concurrency 2": run(
                    folder, env, args.attempts, "--concurrency", "2", *ray
                ),
            }
            cluster.add_worker()
            rows["ray, 2 nodes (1 CPU each), --concurrency 2"] = run(
                folder, env, args.attempts, "--concurrency", "2", *ray
            )
        finally:
            cluster.stop()
    total = args.cases * args.attempts
    print(f"{total} attempts of a {args.seconds:g} s command agent per run")
    for name, attempts in rows.items():
        nodes = len({a["node"] for a in attempts if a["node"]})
        print(
            f"{name:44}  {rate(attempts):5.2f} attempts/s  median attempt "
            f"{median_duration(attempts) * 1000:6.0f} ms  nodes used {nodes}"
        )
    # Per attempt, one at a time: the time between attempts' starts, on Ray and locally.
    extra = 1 / rate(rows["ray, 1 node, one at a time"]) - 1 / rate(rows["local, --concurrency 1"])
    print(f"Ray adds {extra * 1000:.0f} ms per attempt over local, one at a time")


if __name__ == "__main__":
    main()
