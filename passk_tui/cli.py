"""The headless face: flags -> engine -> plain table on stdout, progress on stderr, exit codes."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Mapping
from typing import TextIO

from passk_tui.config import settings_from_args, stack_key
from passk_tui.core.engine import Evaluation
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.figures import two_decimals
from passk_tui.core.progress import Progress
from passk_tui.core.table import below_gate, plain_table
from passk_tui.session import new_evaluation

EXIT_CANCELLED = 130


def run_headless(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Validate everything, run, print the table; the return value is the exit status."""
    try:
        settings = settings_from_args(args, env)
        evaluation = new_evaluation(settings, stack_key(args, env))
    except InputError as exc:
        return _fail(exc)
    try:
        status = asyncio.run(_run(evaluation, sys.stderr))
    except (InputError, RunError) as exc:
        return _fail(exc)
    figures = evaluation.progress.all_figures()
    if status == "failed":
        return _fail(RunError(evaluation.error or "the evaluation failed"))
    sys.stdout.write(plain_table(figures, settings.k))
    sys.stdout.flush()
    if status == "cancelled":
        sys.stderr.write(
            f"passk-tui: cancelled: {evaluation.progress.total - evaluation.progress.finished} "
            "attempts not run\n"
        )
        return EXIT_CANCELLED
    if settings.require is not None:
        failing = below_gate(figures, settings.require)
        for f in failing:
            sys.stderr.write(
                f"passk-tui: gate: {f.name}: pass@{settings.k} {two_decimals(f.pass_at_k)} "
                f"is below --require {args.require}\n"
            )
        if failing:
            return 1
    return 0


def _fail(exc: InputError | RunError) -> int:
    sys.stderr.write(f"passk-tui: {exc}\n")
    return exc.exit_code


async def _run(evaluation: Evaluation, err: TextIO) -> str:
    """Run with a progress reporter beside it; Ctrl-C cancels (a second one quits at once)."""
    loop = asyncio.get_running_loop()

    def on_interrupt() -> None:
        loop.remove_signal_handler(signal.SIGINT)
        err.write("\npassk-tui: cancelling the Runs in flight (Ctrl-C again to quit now)\n")
        evaluation.cancel()

    loop.add_signal_handler(signal.SIGINT, on_interrupt)
    reporter = loop.create_task(_report(evaluation.progress, err))
    try:
        return await evaluation.run()
    finally:
        reporter.cancel()
        await asyncio.wait((reporter,))
        await evaluation.target.aclose()
        if err.isatty():
            err.write("\r\x1b[K")
        else:
            err.write(progress_line(evaluation.progress) + "\n")
        err.flush()


async def _report(progress: Progress, err: TextIO) -> None:
    """One self-updating line on a terminal; a plain line every few seconds otherwise."""
    tty = err.isatty()
    period = 0.1 if tty else 5.0
    while True:
        await asyncio.sleep(period)
        line = progress_line(progress)
        err.write(f"\r\x1b[K{line}" if tty else f"{line}\n")
        err.flush()


def progress_line(progress: Progress) -> str:
    elapsed = progress.elapsed()
    rate = progress.finished / elapsed if elapsed > 0 else 0.0
    left = progress.total - progress.finished
    eta = f"~{_clock(left / rate)} left" if rate > 0 and left else ""
    return (
        f"{progress.finished}/{progress.total} attempts  {progress.in_flight} in flight  "
        f"{rate:.1f}/s  passed {sum(progress.passed)}  wrong {sum(progress.wrong)}  "
        f"errored {sum(progress.errored)}  {_clock(elapsed)}  {eta}"
    ).rstrip()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
