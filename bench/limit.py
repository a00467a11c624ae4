"""Against the limit: achieved/ideal wall time on the test stack, headless and in the app.

    python bench/limit.py                  # all four (C, L), headless and app, 3 repeats each
    python bench/limit.py --only 50:0.05 --faces headless --repeat 5
    python bench/limit.py --only 200:0.05 --cases 1 --floor-repeat 0   # the fixed costs alone

For each (concurrency C, Turn latency L): the test stack runs in its own process with
Turns of L seconds; the CLI (or the app, via bench/app_run.py) runs 1,000 cases x 5
attempts end to end, start-up included, with --completion-only. ideal = attempts x L / C;
the figure is ideal / wall (1.0 = no cost at all). A bare aiohttp client on the same
stack (bench/floor.py) shows what the machine and the stack allow. CPU is the child's
user+sys (wait4), per 1,000 attempts.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
from pathlib import Path

from harness import (
    PYTHON,
    ROOT,
    face_argv,
    fresh_env,
    load,
    machine,
    run_measured,
    spread,
    stack,
    stack_stats,
    warn_if_busy,
    write_cases,
)

CASES, ATTEMPTS = 1000, 5
GRID = [(10, 0.2), (50, 0.05), (200, 0.05), (50, 0.0)]


def one_run(face: str, url: str, cases: Path, count: int, concurrency: int, folder: Path) -> dict:
    argv = face_argv(face, url, cases, ATTEMPTS, concurrency)
    result = run_measured(argv, env=fresh_env(folder), cwd=ROOT)
    if result.rc != 0:
        raise SystemExit(f"{face} failed ({result.rc}): {result.stderr[-800:]}")
    if (
        face == "headless"
        and f"{count * ATTEMPTS}/{count * ATTEMPTS} attempts" not in result.stderr
    ):
        raise SystemExit(f"headless run incomplete: {result.stderr[-500:]}")
    shown = re.search(r"results-screen ([\d.]+)", result.stdout)
    return {
        "wall": result.wall,
        "cpu": result.cpu,
        "rss": result.rss_mb,
        "shown": float(shown.group(1)) if shown else None,
    }


def floor(url: str, concurrency: int, attempts: int) -> float:
    result = run_measured(
        [PYTHON, str(ROOT / "bench" / "floor.py"), url, str(concurrency), str(attempts)]
    )
    match = re.search(r"loop ([\d.]+) s", result.stdout)
    if result.rc != 0 or not match:
        raise SystemExit(f"floor failed: {result.stdout} {result.stderr[-500:]}")
    return float(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--faces", default="headless,app", help="headless,app")
    parser.add_argument("--only", default=None, help="C:L pairs, e.g. 50:0.05,200:0.05")
    parser.add_argument("--floor-repeat", type=int, default=1, help="bare aiohttp runs (0: none)")
    parser.add_argument("--cases", type=int, default=CASES, help="cases (x 5 attempts each)")
    args = parser.parse_args()
    grid = GRID
    if args.only:
        grid = [(int(c), float(x)) for c, x in (p.split(":") for p in args.only.split(","))]
    faces = args.faces.split(",")
    warn_if_busy()
    print(f"machine: {machine()}")
    print(
        f"work: {args.cases} cases x {ATTEMPTS} attempts, --completion-only, test stack in its own process"
    )
    attempts = args.cases * ATTEMPTS
    with tempfile.TemporaryDirectory(prefix="passk-bench-") as tmp:
        folder = Path(tmp)
        cases = write_cases(folder / "cases.jsonl", args.cases)
        for concurrency, latency in grid:
            ideal = attempts * latency / concurrency
            with stack(latency) as server:
                rows = {face: [] for face in faces}
                floors = []
                server_cpu0 = server.cpu()
                for i in range(args.repeat):
                    for face in faces:
                        rows[face].append(
                            one_run(
                                face,
                                server.url,
                                cases,
                                args.cases,
                                concurrency,
                                folder / f"{face}{i}",
                            )
                        )
                    if i < args.floor_repeat and latency > 0:
                        floors.append(floor(server.url, concurrency, attempts))
                server_cpu = server.cpu() - server_cpu0
                stats = stack_stats(server.url)
            runs = args.repeat * len(faces)
            print(
                f"\nC={concurrency} L={latency * 1000:g} ms: ideal {ideal:.2f} s; stack: "
                f"{stats['runs_created']} Runs, in-flight peak {stats['in_flight_peak']}, "
                f"max Runs per key {stats['max_runs_per_key']}, "
                f"its CPU {1000 * server_cpu / (runs * attempts):.3f} ms per attempt; "
                f"load now {load()}"
            )
            for face, results in rows.items():
                walls = [r["wall"] for r in results]
                cpu_k = [1000 * r["cpu"] / attempts for r in results]
                line = (
                    f"  {face:8} wall {spread(walls)} s"
                    + (f"  ideal/wall {spread([ideal / w for w in walls])}" if ideal else "")
                    + f"  CPU/1000 attempts {spread(cpu_k)} s  RSS {spread([r['rss'] for r in results], '{:.0f}')} MB"
                )
                if face == "app":
                    line += f"  results screen at {spread([r['shown'] for r in results])} s"
                print(line)
            if len(faces) > 1 and "headless" in rows and "app" in rows:
                ratio = statistics.median(r["wall"] for r in rows["app"]) / statistics.median(
                    r["wall"] for r in rows["headless"]
                )
                print(f"  app / headless wall: {ratio:.3f}")
            if floors:
                print(
                    f"  bare aiohttp client, loop only (no start-up): {spread(floors)} s, "
                    f"ideal/that {spread([ideal / f for f in floors])}"
                )


if __name__ == "__main__":
    main()
