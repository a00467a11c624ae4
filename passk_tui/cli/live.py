"""An evaluation run in the foreground: one progress line on stderr, stop signals handled.

Shared by a plain run and a ``--baseline`` pair, so both stop alike (see ``run_live``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from passk_tui.cli.output import resume_hint, to_devnull
from passk_tui.core.errors import signalled_exit
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.render.extent_text import attempts_cell, budget_label, time_left_text
from passk_tui.core.run.engine import Evaluation, Interleaved, Status
from passk_tui.core.run.stop_signals import Stop, StopSignals
from passk_tui.core.text.amounts import clock
from passk_tui.core.text.decimals import fixed

if TYPE_CHECKING:
    from passk_tui.evaluations.group_run import GroupRun

#: The signals that stop a run as Ctrl-C does (SIGHUP is not on every platform).
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


async def run_live(
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
        first = evaluation.evaluations[0]
        line = lambda: progress_line(first)  # noqa: E731
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
                resume_hint(resume_id)
                err.flush()
            os._exit(signalled_exit(stopped_by[0]))
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
        to_devnull(*on_terminal)
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
            if tty:
                text = fit_to_width(text, _columns(err))
            err.write(f"\r\x1b[K{text}" if tty else f"{text}\n")
            err.flush()
        except OSError:
            if not tty:
                raise
            closed()
            return


def _columns(err: TextIO) -> int:
    """The terminal's width now (it may be resized mid-run); 80 where it cannot be read."""
    try:
        return os.get_terminal_size(err.fileno()).columns
    except (OSError, ValueError):
        return 80


def fit_to_width(text: str, columns: int) -> str:
    """``text`` in fewer than ``columns`` characters: its gaps closed to one space, then
    without its rate (``4.3/s``, the least needed part), then cut at a word.

    A line as wide as the terminal wraps (or leaves the cursor on the next row), so each
    redraw after ``\r`` would leave the last one behind, a new line every tenth of a second.
    """
    room = max(columns - 1, 1)
    if len(text) <= room:
        return text
    words = text.split()
    for shorter in (words, [w for w in words if not w.endswith("/s")]):
        text = " ".join(shorter)
        if len(text) <= room:
            return text
    cut = text[: room - 1].rpartition(" ")[0] or text[: room - 1]
    return cut + "…"


def progress_line(evaluation: Evaluation) -> str:
    """The live line: attempts done of planned (adaptive: of at most), in flight, rate,
    outcomes so far, time, time left (adaptive, while the total may grow: at most); a Run
    budget below the plan: of what it allows, ``12/≤14 attempts (Run budget)``."""
    progress = evaluation.progress
    rate = progress.rate()
    extent = _reading(evaluation).attempts_extent
    return (
        f"{attempts_cell(extent)} attempts{budget_label(extent)}  {progress.in_flight} in flight  "
        f"{fixed(rate, 1)}/s  passed {sum(progress.passed)}  wrong {sum(progress.wrong)}  "
        f"errored {sum(progress.errored)}  {clock(progress.elapsed())}  "
        f"{time_left_text(extent, rate)}"
    ).rstrip()


def _reading(evaluation: Evaluation) -> EvaluationReading:
    """The evaluation's reading as it stands (only its attempts are asked of it here)."""
    return EvaluationReading(evaluation.evaluation_id, evaluation.settings, evaluation.progress)


def together_line(sides: Sequence[tuple[str, Evaluation]]) -> str:
    """Evaluations run in one pool (a pair, a matrix) on one line: each one's counts after its
    label, then the Runs in flight and the time."""
    shown = []
    for label, evaluation in sides:
        p = evaluation.progress
        shown.append(
            f"{label} {attempts_cell(_reading(evaluation).attempts_extent)} "
            f"passed {sum(p.passed)} wrong {sum(p.wrong)} errored {sum(p.errored)}"
        )
    in_flight = sum(evaluation.progress.in_flight for _, evaluation in sides)
    elapsed = sides[-1][1].progress.elapsed()
    return f"{'  '.join(shown)}  {in_flight} in flight  {clock(elapsed)}"


def run_together(group: GroupRun, stopped_by: list[int], line: Callable[[], str]) -> Status:
    """A pair or a matrix in the foreground: its warnings said, then run unless it is only to
    be shown (resumed with every member done); how it ended (``group_status``)."""
    from passk_tui.cli.output import say
    from passk_tui.core.run.gc_thresholds import relaxed_gc
    from passk_tui.evaluations.group_run import group_status

    for warning in group.warnings:
        say(f"warning: {warning}")
    if group.shown_only:
        return "done"
    with relaxed_gc():
        return group_status(asyncio.run(run_live(group.running, sys.stderr, stopped_by, line)))


def failed_together(group: GroupRun, status: str) -> int | None:
    """A pair's or a matrix's end, before its results: what could not be stored said, and
    when it failed, why in one line with how to resume it and its exit status (else None)."""
    from passk_tui.cli.output import fail, say
    from passk_tui.core.errors import RunError

    for member in group.members:
        if member.store_error:
            say(f"warning: {member.store_error}")
    if status != "failed":
        return None
    code = fail(RunError(group.error or "the evaluation failed"))
    resume_hint(group.evaluation_id)
    return code
