"""The Run screen's own cost during a live run: CPU per repaint, counted in-process.

    python bench/run_screen.py [--cases 1000] [--attempts 5] [--concurrency 200] [--runs 3]
    PYTHONPATH=OTHER python bench/run_screen.py    # another checkout's app, the same way

A live 1,000-case evaluation is played into the Run screen by hand (no engine, no
network), in the order the engine runs it (attempt-major, ``--concurrency`` in flight),
inside ``App.run_test`` at 160x50: per step, a batch of attempts starts or finishes,
then the screen's tick and Textual's screen update run as the app's timers would run
them. Printed: the CPU (``time.process_time``) of the ticks in which lines of the grid
changed, of those in which only the summary and pace lines did, and of the Results
screen shown at the end (from the push to its first frame), each with the lines the
grid drew. It is the Run screen's share of what ``bench/limit.py`` measures at
(200, 50 ms), without the engine's CPU around it, so a change to the screen can be read
on a busy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

# After PYTHONPATH, so that another checkout's package there is the one measured.
sys.path.append(str(Path(__file__).resolve().parents[1]))

from bench.harness import machine, spread, warn_if_busy
from passk_tui.core.attempt import AttemptRecord, Outcome


@dataclass
class Figures:
    """One run's CPU (seconds) and lines drawn, by kind of tick."""

    grid_ticks: list[float]
    line_ticks: list[float]
    grid_lines: int
    results: float


def _record(case_index: int, attempt: int) -> AttemptRecord:
    """A passed attempt, as the engine records one."""
    return AttemptRecord(
        case_index=case_index,
        case=f"case-{case_index:05d}",
        attempt=attempt,
        key=f"ev_bench/{case_index}/{attempt}",
        outcome=Outcome.PASSED,
        status="completed",
        output=f"answer {case_index}",
        reason=None,
        error=None,
        run_id=None,
        turn_id=None,
        started=0.0,
        ended=0.05,
        usage=None,
    )


async def one_run(cases: int, attempts: int, concurrency: int) -> Figures:
    from textual.strip import Strip

    from passk_tui.core.inputs.settings import Settings
    from passk_tui.core.run.gc_thresholds import relaxed_gc
    from passk_tui.core.stats.progress import Cell, Progress
    from passk_tui.tui.app.app import PasskApp
    from passk_tui.tui.screens.results.screen import ResultsScreen
    from passk_tui.tui.screens.run import RunScreen
    from passk_tui.tui.view import EvaluationView
    from passk_tui.tui.widgets.attempts_grid import AttemptsGrid

    settings = Settings(
        agent="demo",
        version=1,
        cases_path="cases.jsonl",
        attempts=attempts,
        concurrency=concurrency,
    )
    progress = Progress([f"case-{i:05d}" for i in range(cases)], attempts, settings.k)
    # A fixed policy: no case is stopped early (the view reads its stop reasons).
    policy = SimpleNamespace(stop_reasons=None)
    live = SimpleNamespace(status=None, error=None, status_reason=None, policy=policy)
    view = EvaluationView("ev_bench", settings, progress, evaluation=live)
    order = [(c, a) for a in range(1, attempts + 1) for c in range(cases)]
    drawn = [0]
    draw = AttemptsGrid.render_line

    def counted(grid: AttemptsGrid, y: int) -> Strip:
        drawn[0] += 1
        return draw(grid, y)

    AttemptsGrid.render_line = counted
    figures = Figures([], [], 0, 0.0)
    app = PasskApp(show_timing=False)
    with relaxed_gc():
        async with app.run_test(size=(160, 50)) as pilot:
            screen = RunScreen(view)
            app.push_screen(screen)
            await pilot.pause()

            def tick() -> None:
                before, start = drawn[0], time.process_time()
                screen.refresh_from_progress()
                screen._on_timer_update()  # Textual's screen update, as its timer runs it
                spent = time.process_time() - start
                if drawn[0] > before:
                    figures.grid_ticks.append(spent)
                    figures.grid_lines += drawn[0] - before
                else:
                    figures.line_ticks.append(spent)

            for start in range(0, len(order) + concurrency, concurrency):
                for c, a in order[start : start + concurrency]:
                    progress.mark(c, a, Cell.RUNNING)
                done = order[max(0, start - concurrency) : start]
                progress.add([_record(c, a) for c, a in done])
                tick()
                await asyncio.sleep(0)
            live.status = "done"
            begin = time.process_time()
            results = ResultsScreen(view)
            drawn = asyncio.Event()
            app.push_screen(results)
            results.screen_layout_refresh_signal.subscribe(
                app, lambda _: drawn.set(), immediate=True
            )
            await drawn.wait()  # its first frame, as bench/app_run.py waits for it
            figures.results = time.process_time() - begin
    AttemptsGrid.render_line = draw
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--attempts", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    warn_if_busy()
    print(machine())
    runs = [
        asyncio.run(one_run(args.cases, args.attempts, args.concurrency)) for _ in range(args.runs)
    ]
    ms = "{:.2f}"
    grid = [1000 * statistics.median(r.grid_ticks) for r in runs]
    line = [1000 * statistics.median(r.line_ticks) for r in runs]
    total = [sum(r.grid_ticks) + sum(r.line_ticks) for r in runs]
    print(
        f"{args.cases} cases x {args.attempts} attempts, {args.concurrency} in flight: "
        f"{len(runs[0].grid_ticks)} ticks drew grid lines ({runs[0].grid_lines} lines), "
        f"{len(runs[0].line_ticks)} only the summary and pace"
    )
    print(f"  a tick that drew grid lines: {spread(grid, ms)} ms CPU (median per run)")
    print(f"  a tick of the summary and pace only: {spread(line, ms)} ms CPU")
    print(f"  every tick: {spread([1000 * t for t in total], '{:.0f}')} ms CPU in all")
    print(
        f"  the Results screen, push to first frame: {spread([1000 * r.results for r in runs], '{:.0f}')} ms CPU"
    )


if __name__ == "__main__":
    main()
