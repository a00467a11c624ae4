"""Scale: wall time, CPU, peak memory and store size from 1,000 to 100,000 attempts.

    python bench/scale.py                       # headless: 20, 200, 2,000 cases x 50 attempts
    python bench/scale.py --faces headless,app  # the app too (bench/app_run.py)
    python bench/scale.py --sizes 2000 --repeat 1

The test stack runs in its own process with 0 ms Turns (so passk-tui's own cost is all
there is), --concurrency 50, --completion-only. Peak memory is the child's max RSS
(wait4); the store is the size of its SQLite files (database + WAL) after the run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from harness import (
    ROOT,
    face_argv,
    fresh_env,
    machine,
    run_measured,
    spread,
    stack,
    warn_if_busy,
    write_cases,
)

ATTEMPTS, CONCURRENCY = 50, 50


def store_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in (folder / "store").glob("passk.db*"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,200,2000", help="case counts (x 50 attempts)")
    parser.add_argument("--faces", default="headless")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warn_if_busy()
    print(f"machine: {machine()}")
    print(f"work: N cases x {ATTEMPTS} attempts, --concurrency {CONCURRENCY}, 0 ms Turns")
    print(
        f"{'face':8} {'attempts':>8} {'wall s':>20} {'CPU s':>20} {'ms CPU/att':>10} "
        f"{'peak RSS MB':>16} {'store MB':>8} {'B/attempt':>9}"
    )
    with tempfile.TemporaryDirectory(prefix="passk-bench-scale-") as tmp, stack(0.0) as server:
        folder = Path(tmp)
        for cases in (int(x) for x in args.sizes.split(",")):
            path = write_cases(folder / f"cases{cases}.jsonl", cases)
            attempts = cases * ATTEMPTS
            for face in args.faces.split(","):
                runs = []
                for i in range(args.repeat):
                    data = folder / f"{face}-{cases}-{i}"
                    argv = face_argv(face, server.url, path, ATTEMPTS, CONCURRENCY)
                    result = run_measured(argv, env=fresh_env(data), cwd=ROOT, timeout=1800)
                    if result.rc != 0:
                        raise SystemExit(f"{face} failed ({result.rc}): {result.stderr[-800:]}")
                    runs.append((result, store_bytes(data)))
                walls = [r.wall for r, _ in runs]
                size = runs[-1][1]
                print(
                    f"{face:8} {attempts:>8} {spread(walls):>20} "
                    f"{spread([r.cpu for r, _ in runs]):>20} "
                    f"{1000 * statistics.median(r.cpu for r, _ in runs) / attempts:>10.3f} "
                    f"{spread([r.rss_mb for r, _ in runs], '{:.0f}'):>16} "
                    f"{size / 2**20:>8.1f} {size / attempts:>9.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
