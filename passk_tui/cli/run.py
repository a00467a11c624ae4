"""The headless face: flags -> engine -> plain table on stdout, progress on stderr, exit codes."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TextIO

from passk_tui.core.errors import EXIT_CANCELLED, EXIT_SIGNALLED, InputError, RunError
from passk_tui.core.run.engine import Interleaved, Status
from passk_tui.core.run.heap import relaxed_gc
from passk_tui.core.run.progress import Progress
from passk_tui.core.run.stop_signals import Stop, StopSignals
from passk_tui.core.stats.gate import gate_lines
from passk_tui.core.stats.sampling import adaptive_lines
from passk_tui.core.stats.sampling import reading as settings_reading
from passk_tui.core.text.clock import clock
from passk_tui.core.text.table import plain_columns, plain_table
from passk_tui.core.text.terminal_text import message_line
from passk_tui.evaluations.session import RecordedEvaluation, new_evaluation, resume_evaluation
from passk_tui.evaluations.settings_text import resume_changes, settings_from_args, stack_key
from passk_tui.reports.export import EXIT_EXPORT_FAILED, check_export_path, export
from passk_tui.store import Store
from passk_tui.store.history import history_rows

#: The environment failed us (stdout on a full disk): as for an evaluation that could not run.
EXIT_ENVIRONMENT = RunError.exit_code
#: The signals that stop a run as Ctrl-C does (SIGHUP is not on every platform).
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def run_headless(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Validate everything, run (or resume), print the table; the return value is the exit status."""
    if _may_be_paired(args):
        from passk_tui.cli.pair import run_if_paired

        paired = run_if_paired(args, env)
        if paired is not None:
            return paired
    evaluation: RecordedEvaluation | None = None
    stopped_by: list[int] = []
    try:
        export_path = check_export_path(args.export) if args.export else None
        key = stack_key(args, env)
        if args.resume:
            resumed = resume_evaluation(args.resume, key, resume_changes(args))
            evaluation = resumed.evaluation
            for warning in resumed.warnings:
                say(f"warning: {warning}")
            # A done evaluation is only shown; one with every attempt in is marked done by
            # running it, and so is a "done" one with attempts missing (batches an older
            # passk-tui dropped when a value could not be stored): resume repairs it.
            status = "done" if resumed.shown_only else None
        else:
            evaluation = new_evaluation(settings_from_args(args, env), key)
            for warning in evaluation.warnings:
                say(f"warning: {warning}")
            status = None
        if status is None:
            with relaxed_gc():
                (status,) = asyncio.run(_run(Interleaved([evaluation]), sys.stderr, stopped_by))
    except (InputError, RunError) as exc:
        # Bad input, or the target refused before any Run started: one line, nothing to resume.
        return _fail(exc)
    except KeyboardInterrupt:
        return interrupted(evaluation.evaluation_id if evaluation is not None else None)
    return _report_end(evaluation, status, args, export_path, stopped_exit(stopped_by))


def _may_be_paired(args: argparse.Namespace) -> bool:
    """Whether the run may be a --baseline pair: only then is the comparison's code imported."""
    return args.baseline is not None or bool(args.resume) or bool(args.fail_on_regression)


def interrupted(evaluation_id: str | None) -> int:
    """Ctrl-C before the run's own handlers were in place: one line, how to resume, 130."""
    sys.stderr.write("\n")
    say("interrupted")
    if evaluation_id is not None:
        _resume_hint(evaluation_id)
    return EXIT_CANCELLED


def stopped_exit(stopped_by: list[int]) -> int:
    """The exit status of a stopped run: 128 + the first stop signal's number, else 130."""
    return EXIT_SIGNALLED + stopped_by[0] if stopped_by else EXIT_CANCELLED


def _report_end(
    evaluation: RecordedEvaluation,
    status: str,
    args: argparse.Namespace,
    export_path: Path | None,
    cancelled: int = EXIT_CANCELLED,
) -> int:
    """The table and the gate, then the export, and how to resume when the evaluation did not finish.

    The export comes last so that a failed one (a full disk) costs only itself:
    the results are on the screen, the failure is one line, and the exit status
    is the gate's, or 5 when only the export failed.
    """
    settings = evaluation.settings
    figures = evaluation.progress.all_figures()
    if evaluation.store_error:
        say(f"warning: {evaluation.store_error}")
    if status == "failed":
        code = _fail(RunError(evaluation.error or "the evaluation failed"))
        _resume_hint(evaluation.evaluation_id)
    else:
        reading = settings_reading(figures, settings)
        shown = reading if settings.confidence is not None else None
        if not _print(plain_table(figures, settings.k, shown), evaluation.evaluation_id):
            return EXIT_ENVIRONMENT
        if settings.adaptive:
            for line in adaptive_lines(evaluation.progress, settings, reading):
                say(line)
        if status == "cancelled":
            not_run = evaluation.progress.total - evaluation.progress.finished
            say(f"cancelled: {not_run} attempts not run")
            _resume_hint(evaluation.evaluation_id)
            code = cancelled
        else:
            for line in gate_lines(reading, args.require):
                say(line)
            code = reading.exit_code
    if export_path is not None:
        code = _export(evaluation, export_path, settings.confidence, code)
    return code


def _export(evaluation: RecordedEvaluation, path: Path, confidence: float | None, code: int) -> int:
    """Write the export; a failure is one line and exit 5 unless the status already says more."""
    try:
        written = export(evaluation.store.load(evaluation.evaluation_id), path, confidence)
    except (InputError, RunError) as exc:
        say(f"export failed: {exc}")
        return code or EXIT_EXPORT_FAILED
    except RecursionError:
        say(f"export failed: --export {path}: an answer nests too deep")
        return code or EXIT_EXPORT_FAILED
    say(f"wrote {written}")
    return code


def _resume_hint(evaluation_id: str) -> None:
    say(f"what finished is stored; to continue: passk-tui --resume {evaluation_id}")


def say(line: str) -> None:
    """One line on stderr, outside text made terminal-safe (so it stays one line)."""
    sys.stderr.write(f"passk-tui: {message_line(line)}\n")
    sys.stderr.flush()


def _print(text: str, evaluation_id: str | None = None) -> bool:
    """Write ``text`` to stdout; False (said in one line) when stdout cannot take it."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        # Nothing more can reach stdout: point it at /dev/null so that the interpreter's
        # own flush at exit does not fail a second time with a traceback.
        _to_devnull(sys.stdout)
        problem = f"cannot write the results to stdout: {exc.strerror or exc}"
        if evaluation_id is not None:
            problem += f"; they are stored (passk-tui --resume {evaluation_id} shows them)"
        say(problem)
        return False
    return True


def _to_devnull(*files: TextIO) -> None:
    """Point each file's descriptor at /dev/null: what is still written goes nowhere, quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for file in files:
        os.dup2(devnull, file.fileno())
    os.close(devnull)


def _fail(exc: InputError | RunError) -> int:
    say(str(exc))
    return exc.exit_code


def run_history(argv: list[str]) -> int:
    """`passk-tui history`: every stored evaluation as a plain table on stdout, newest first."""
    from passk_tui.cli.flags import parse_history

    parse_history(argv)
    try:
        with Store.open() as store:
            summaries = store.list_evaluations()
            where = store.path
    except (InputError, RunError) as exc:
        return _fail(exc)
    if not summaries:
        say(f"no evaluations stored yet ({where})")
        return 0
    return 0 if _print(plain_columns(history_rows(summaries))) else EXIT_ENVIRONMENT


async def _run(
    evaluation: Interleaved,
    err: TextIO,
    stopped_by: list[int],
    line: Callable[[], str] | None = None,
) -> list[Status]:
    """Run with a progress reporter beside it; a stop signal cancels, a second one quits at once.

    ``evaluation`` is one evaluation, or a baseline beside a candidate (``line`` then says
    the progress of both); how each ended is returned in order.

    Ctrl-C (SIGINT), SIGTERM and SIGHUP all stop the same way: start nothing new,
    withdraw and cancel the attempts in flight, keep what finished; the first
    signal's number goes into ``stopped_by`` for the exit status (128 + it). A
    second stop ends the process within the moment it takes to store what is
    in: the Runs in flight are left to end on the stack (a resume replays them).
    The same signal again within half a second is the first stop delivered twice
    (to the process and to its group, as timeout(1) does), not a second stop.
    """
    loop = asyncio.get_running_loop()
    resume_id = evaluation.evaluations[-1].evaluation_id
    if line is None:
        line = lambda: progress_line(evaluation.evaluations[0].progress)  # noqa: E731
    try:
        await evaluation.prepare()
    except BaseException:
        await evaluation.aclose()
        raise

    stops = StopSignals()
    on_terminal = [file for file in (sys.stdout, err) if file.isatty()]

    def on_signal(signum: int) -> None:
        # What to do first, what to say after: a write to a closed terminal fails.
        stop = stops.receive(signum, time.monotonic())
        if stop is Stop.REPEAT:
            return
        if stop is Stop.NOW:
            evaluation.abandon()
            with contextlib.suppress(OSError):
                err.write(
                    "\npassk-tui: quitting now; the Runs in flight are left to end on the stack\n"
                )
                _resume_hint(resume_id)
                err.flush()
            os._exit(EXIT_SIGNALLED + stopped_by[0])
        stopped_by.append(signum)
        evaluation.cancel()
        name = signal.Signals(signum).name
        try:
            err.write(f"\npassk-tui: {name}: cancelling the Runs in flight (again to quit now)\n")
        except OSError:
            if err not in on_terminal:
                raise
            terminal_closed()

    def terminal_closed() -> None:
        """The terminal went away (ssh drop, closed tab), often with no SIGHUP: stop as SIGHUP
        does; what it would have shown (the table, how to resume) goes nowhere, not failing."""
        _to_devnull(*on_terminal)
        if stops.first is None:
            on_signal(signal.SIGHUP)

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    reporter = loop.create_task(_report(line, err, terminal_closed))
    try:
        return await evaluation.run()
    finally:
        reporter.cancel()
        await asyncio.wait((reporter,))
        await evaluation.aclose()  # the cancels still under way: a second signal cuts them
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
        if stops.first is not None:
            # The run has ended; until the process is gone (Python puts the default action
            # back as it exits), the first stop's late copy must not kill it (-15, no table).
            signal.signal(stops.first, signal.SIG_IGN)
        if err.isatty():
            err.write("\r\x1b[K")
        else:
            err.write(line() + "\n")
        err.flush()


async def _report(line: Callable[[], str], err: TextIO, closed: Callable[[], None]) -> None:
    """One self-updating line on a terminal; a plain line every few seconds otherwise.

    A terminal that refuses the line is gone: ``closed`` is called and reporting ends.
    """
    tty = err.isatty()
    period = 0.1 if tty else 5.0
    while True:
        await asyncio.sleep(period)
        text = line()
        try:
            err.write(f"\r\x1b[K{text}" if tty else f"{text}\n")
            err.flush()
        except OSError:
            if not tty:
                raise
            closed()
            return


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
