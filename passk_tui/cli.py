"""The headless face: flags -> engine -> plain table on stdout, progress on stderr, exit codes."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from passk_tui.config import resume_changes, settings_from_args, stack_key
from passk_tui.core.clock import clock
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.figures import CaseFigures
from passk_tui.core.heap import relaxed_gc
from passk_tui.core.progress import Progress
from passk_tui.core.settings import Settings
from passk_tui.core.table import below_gate, gate_lines, gate_text, plain_columns, plain_table
from passk_tui.session import RecordedEvaluation, new_evaluation, resume_evaluation
from passk_tui.store import Store
from passk_tui.store.export import check_export_path, export
from passk_tui.store.history import history_rows

EXIT_CANCELLED = 130
#: A run stopped by a signal exits 128 + its number: 130 SIGINT, 143 SIGTERM, 129 SIGHUP.
EXIT_SIGNALLED = 128
#: The signals that stop a run as Ctrl-C does (SIGHUP is not on every platform).
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def run_headless(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Validate everything, run (or resume), print the table; the return value is the exit status."""
    evaluation: RecordedEvaluation | None = None
    stopped_by: list[int] = []
    try:
        export_path = check_export_path(args.export) if args.export else None
        key = stack_key(args, env)
        if args.resume:
            resumed = resume_evaluation(args.resume, key, resume_changes(args))
            evaluation = resumed.evaluation
            for warning in resumed.warnings:
                sys.stderr.write(f"passk-tui: warning: {warning}\n")
            # A done evaluation is only shown; one with every attempt in is marked done by running it.
            status = "done" if resumed.stored.status == "done" else None
        else:
            evaluation = new_evaluation(settings_from_args(args, env), key)
            status = None
        if status is None:
            with relaxed_gc():
                status = asyncio.run(_run(evaluation, sys.stderr, stopped_by))
    except (InputError, RunError) as exc:
        # Bad input, or the target refused before any Run started: one line, nothing to resume.
        return _fail(exc)
    except KeyboardInterrupt:
        sys.stderr.write("\npassk-tui: interrupted\n")
        if evaluation is not None:
            _resume_hint(evaluation.evaluation_id)
        return EXIT_CANCELLED
    cancelled = EXIT_SIGNALLED + stopped_by[0] if stopped_by else EXIT_CANCELLED
    return _report_end(evaluation, status, args, export_path, cancelled)


def _report_end(
    evaluation: RecordedEvaluation,
    status: str,
    args: argparse.Namespace,
    export_path: Path | None,
    cancelled: int = EXIT_CANCELLED,
) -> int:
    """The table, the export, the gate, and how to resume when the evaluation did not finish."""
    settings = evaluation.settings
    figures = evaluation.progress.all_figures()
    if evaluation.store_error:
        sys.stderr.write(f"passk-tui: warning: {evaluation.store_error}\n")
    if export_path is not None:
        try:
            export(evaluation.store.load(evaluation.evaluation_id), export_path)
        except (InputError, RunError) as exc:
            return _fail(exc)
    if status == "failed":
        code = _fail(RunError(evaluation.error or "the evaluation failed"))
        _resume_hint(evaluation.evaluation_id)
        return code
    sys.stdout.write(plain_table(figures, settings.k))
    sys.stdout.flush()
    if status == "cancelled":
        sys.stderr.write(
            f"passk-tui: cancelled: {evaluation.progress.total - evaluation.progress.finished} "
            "attempts not run\n"
        )
        _resume_hint(evaluation.evaluation_id)
        return cancelled
    return _gate(figures, settings, args.require)


def _gate(figures: list[CaseFigures], settings: Settings, given: str | None) -> int:
    if settings.require is None:
        return 0
    failing = below_gate(figures, settings.require)
    for line in gate_lines(failing, settings.k, given or gate_text(settings.require)):
        sys.stderr.write(f"passk-tui: {line}\n")
    return 1 if failing else 0


def _resume_hint(evaluation_id: str) -> None:
    sys.stderr.write(
        f"passk-tui: what finished is stored; to continue: passk-tui --resume {evaluation_id}\n"
    )


def _fail(exc: InputError | RunError) -> int:
    sys.stderr.write(f"passk-tui: {exc}\n")
    return exc.exit_code


def run_history(argv: list[str]) -> int:
    """`passk-tui history`: every stored evaluation as a plain table on stdout, newest first."""
    from passk_tui.args import parse_history

    parse_history(argv)
    try:
        with Store.open() as store:
            summaries = store.list_evaluations()
            where = store.path
    except (InputError, RunError) as exc:
        return _fail(exc)
    if not summaries:
        sys.stderr.write(f"passk-tui: no evaluations stored yet ({where})\n")
        return 0
    sys.stdout.write(plain_columns(history_rows(summaries)))
    return 0


async def _run(evaluation: RecordedEvaluation, err: TextIO, stopped_by: list[int]) -> str:
    """Run with a progress reporter beside it; a stop signal cancels, a second one quits at once.

    Ctrl-C (SIGINT), SIGTERM and SIGHUP all stop the same way: start nothing new,
    withdraw and cancel the attempts in flight, keep what finished; the first
    signal's number goes into ``stopped_by`` for the exit status (128 + it). A
    second signal ends the process within the moment it takes to store what is
    in: the Runs in flight are left to end on the stack (a resume replays them).
    """
    loop = asyncio.get_running_loop()
    try:
        await evaluation.prepare()
    except BaseException:
        await evaluation.target.aclose()
        raise

    def on_signal(signum: int) -> None:
        if stopped_by:
            err.write(
                "\npassk-tui: quitting now; the Runs in flight are left to end on the stack\n"
            )
            evaluation.abandon()
            _resume_hint(evaluation.evaluation_id)
            err.flush()
            os._exit(EXIT_SIGNALLED + stopped_by[0])
        stopped_by.append(signum)
        name = signal.Signals(signum).name
        err.write(f"\npassk-tui: {name}: cancelling the Runs in flight (again to quit now)\n")
        evaluation.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    reporter = loop.create_task(_report(evaluation.progress, err))
    try:
        return await evaluation.run()
    finally:
        reporter.cancel()
        await asyncio.wait((reporter,))
        await evaluation.target.aclose()  # the cancels still under way: a second signal cuts them
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
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
    rate = progress.rate()
    left = progress.seconds_left()
    eta = f"~{clock(left)} left" if left else ""
    return (
        f"{progress.finished}/{progress.total} attempts  {progress.in_flight} in flight  "
        f"{rate:.1f}/s  passed {sum(progress.passed)}  wrong {sum(progress.wrong)}  "
        f"errored {sum(progress.errored)}  {clock(elapsed)}  {eta}"
    ).rstrip()
