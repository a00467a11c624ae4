"""The HTML report at scale: 2,000 cases x 50 attempts -> file size, render time, chromium's load.

    python bench/report_html.py [--cases 2000] [--attempts 50] [--runs 3] [--keep report.html]
                                [--against old.html ...]

Builds a synthetic stored evaluation (70% passed, 20% wrong, 10% errored, answers of
3 to 5,000 characters,
the long ones distinct per attempt, seeded), renders it with ``render_report``, then opens the file
in a fresh headless chromium (Debian's, through its chromedriver) per run and reads the
page's own timings: DOMContentLoaded, load and first contentful paint, from navigation
start. ``--against`` loads other report files (an older version's ``--keep``) in the same
runs, in turn, so a before/after shares one spell of machine load. Run from the
repository root.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import machine, proc_cpu, spread, warn_if_busy
from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.reports.report import build_report
from passk_tui.reports.report_html import render_report
from passk_tui.store.models import StoredEvaluation
from tests.support.chromium import start_chromium

TIMINGS = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
return [nav.domContentLoadedEventEnd, nav.loadEventEnd, paint ? paint.startTime : null,
        document.querySelectorAll('*').length];
"""


def synthetic(cases: int, attempts: int, seed: int = 7) -> StoredEvaluation:
    """A finished evaluation with a realistic mix of outcomes and answer sizes."""
    rng = random.Random(seed)
    records = []
    for i in range(cases):
        p = rng.choice((1.0, 0.95, 0.8, 0.5, 0.2, 0.0))
        for a in range(1, attempts + 1):
            roll = rng.random()
            outcome = (
                Outcome.ERRORED
                if roll < 0.1
                else Outcome.PASSED
                if rng.random() < p
                else Outcome.WRONG
            )
            size = rng.choice((3, 3, 40, 200, 200, 1200, 5000))
            # Short answers repeat (as exact answers do); long ones differ from attempt to attempt.
            text = (
                "The answer is 391. " if size < 200 else f"Attempt {a}: the answer is 391. "
            ) * 300
            answer = None if outcome is Outcome.ERRORED else text[:size]
            records.append(
                AttemptRecord(
                    case_index=i,
                    case=f"case-{i:04d}",
                    attempt=a,
                    key=f"ev_bench/{i}/{a}",
                    outcome=outcome,
                    status="failed" if outcome is Outcome.ERRORED else "completed",
                    output=answer,
                    reason="expected '391', got 'The answer is 391. The...'"
                    if outcome is Outcome.WRONG
                    else None,
                    error="tool weather: HTTP 503 from the upstream after 3 retries"
                    if outcome is Outcome.ERRORED
                    else None,
                    run_id=f"run_{i:04d}_{a:02d}_0123456789",
                    turn_id=f"turn_{i:04d}_{a:02d}_0123456789",
                    started=1000.0,
                    ended=1000.0 + rng.uniform(0.2, 4.0),
                )
            )
    return StoredEvaluation(
        id="ev_bench",
        created=1_700_000_000.0,
        finished=1_700_000_900.0,
        status="done",
        error=None,
        settings=Settings(
            "bench-agent", 3, "cases.toml", attempts=attempts, k=3, require=Fraction(9, 10)
        ),
        cases=[
            Case(f"case-{i:04d}", f"Question {i}: what is 17 * 23?", None, {"equals": "391"})
            for i in range(cases)
        ],
        cases_sha256="0" * 64,
        records=records,
    )


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (chromedriver -> chromium and its renderers)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by the processes below ``pid``."""
    return sum(proc_cpu(p) for p in descendants(pid))


def load_in_chromium(path: Path) -> tuple[float, float, float, float | None, int, float]:
    """Wall of driver.get (returns at load), the page's DCL, load and FCP (ms), elements, CPU s.

    The CPU seconds the browser spent on the load do not grow with other work on the
    machine, as the wall does: on a shared machine they are the steadier figure.
    """
    profile = tempfile.mkdtemp(prefix="passk-bench-chromium-")
    driver = start_chromium(Path(profile), window="1400,1000")
    try:
        driver.get("about:blank")
        root = driver.service.process.pid
        cpu_before = tree_cpu(root)
        start = time.perf_counter()
        driver.get(path.as_uri())
        wall = (time.perf_counter() - start) * 1000
        cpu = tree_cpu(root) - cpu_before
        dcl, load, fcp, elements = driver.execute_script(TIMINGS)
        return wall, dcl, load, fcp, elements, cpu
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def report_loads(loads: list[tuple[float, float, float, float | None, int, float]]) -> None:
    """Print the figures of one file's loads (load_in_chromium's tuples)."""
    walls, dcls, onloads, fcps, elements, cpus = zip(*loads, strict=True)
    print(f"elements in the DOM: {elements[0]:,}")
    print(f"chromium driver.get (to load): {spread([w / 1000 for w in walls])} s")
    print(f"DOMContentLoaded: {spread([d / 1000 for d in dcls])} s")
    print(f"load event: {spread([v / 1000 for v in onloads])} s")
    if all(f is not None for f in fcps):
        print(f"first contentful paint: {spread([f / 1000 for f in fcps])} s")
    print(f"browser CPU for the load: {spread(cpus)} s")
    print(f"median load {statistics.median(onloads) / 1000:.2f} s (goal < 2 s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--attempts", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the report here (else a temp file)")
    parser.add_argument(
        "--against",
        type=Path,
        nargs="*",
        default=[],
        help="other report files (e.g. an older version's --keep) loaded in the same runs",
    )
    args = parser.parse_args()
    print(machine())
    warn_if_busy()
    stored = synthetic(args.cases, args.attempts)
    renders = []
    for _ in range(args.runs):
        start = time.perf_counter()
        text = render_report(build_report(stored))
        renders.append(time.perf_counter() - start)
    path = args.keep or Path(tempfile.mkdtemp(prefix="passk-bench-")) / "report.html"
    path.write_text(text, encoding="utf-8")
    size = path.stat().st_size
    print(f"{args.cases} cases x {args.attempts} attempts: {size / 1e6:.1f} MB ({size:,} bytes)")
    print(f"render_report: {spread(renders)} s")
    # Each run loads this report, then every --against file: all see the same spell of load.
    files = [path, *args.against]
    loads: dict[Path, list] = {f: [] for f in files}
    for _ in range(args.runs):
        for f in files:
            loads[f].append(load_in_chromium(f.resolve()))
    for f in files:
        if f is not path:
            print(f"-- against {f} ({f.stat().st_size / 1e6:.1f} MB), in the same runs:")
        report_loads(loads[f])
    return 0


if __name__ == "__main__":
    sys.exit(main())
