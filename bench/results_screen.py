"""The Results screen at size: time to show 1,000 cases, and a sort and cursor moves on it.

    python bench/results_screen.py [--cases 1000] [--attempts 5] [--runs 3]

A seeded synthetic finished evaluation (bench/report_html.py's) is opened on the
Results screen inside ``App.run_test`` at 160x50, as History opens a stored one.
Printed: seconds from the push to the screen drawn, and per key (Down x10, PageDown
x3, ``p`` to sort by pass@k) the time from the press to the screen drawn again.
Pilot's own press costs about 85 ms on this machine (a bare app with one Static
measures that), so a key's figure is that plus the app's work. Run from the
repository root; ``PYTHONPATH=OTHER python bench/results_screen.py`` measures another
checkout the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import machine, spread, warn_if_busy
from bench.report_html import synthetic

KEYS = ["down"] * 10 + ["pagedown"] * 3 + ["p"]


async def one_run(cases: int, attempts: int) -> tuple[float, dict[str, list[float]]]:
    from passk_tui.core.run.gc_thresholds import relaxed_gc
    from passk_tui.tui.app.app import PasskApp
    from passk_tui.tui.screens.results.screen import ResultsScreen
    from passk_tui.tui.view import EvaluationView

    view = EvaluationView.from_store(synthetic(cases, attempts), False)
    app = PasskApp(show_timing=False)
    with relaxed_gc():
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            start = time.perf_counter()
            app.push_screen(ResultsScreen(view))
            await pilot.pause()
            shown = time.perf_counter() - start
            keys: dict[str, list[float]] = {}
            for key in KEYS:
                start = time.perf_counter()
                await pilot.press(key)
                await pilot.pause()
                keys.setdefault(key, []).append(time.perf_counter() - start)
    return shown, keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--attempts", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    warn_if_busy()
    print(machine())
    shown, keys = [], {}
    for _ in range(args.runs):
        seconds, pressed = asyncio.run(one_run(args.cases, args.attempts))
        shown.append(seconds)
        for key, values in pressed.items():
            keys.setdefault(key, []).append(statistics.median(values))
    print(f"{args.cases} cases x {args.attempts} attempts: results shown in {spread(shown)} s")
    for key, values in keys.items():
        print(f"  {key}: {spread([v * 1000 for v in values], '{:.0f}')} ms (median per run)")


if __name__ == "__main__":
    main()
