"""What the app's process exits with, and says on stderr once the terminal is back.

The same outcomes as the headless CLI's: the gate's reading decides (core/gate.py);
this only picks which of the app's states applies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from passk_tui.core.errors import ExitCode, InputError, RunError, signalled_exit
from passk_tui.core.render.extent_text import not_run_text
from passk_tui.core.render.reproduce import resume_text
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.view import EvaluationView

if TYPE_CHECKING:
    from passk_tui.tui.app.run_controller import RunController


def crash_error(error: BaseException | None) -> RunError | None:
    """The exception that ended the app, if one did, as a could-not-run (exit 3) in one line.

    Textual prints its traceback and keeps the first such exception; without this the
    process exited 0 (or by the gate) as if the app had closed normally.
    """
    if error is None:
        return None
    text = " ".join(str(error).split())
    return RunError(terminal_safe(f"the app stopped on an error: {type(error).__name__}: {text}"))


def app_exit_status(run: RunController, signalled: int | None, crash: RunError | None) -> int:
    """The process's exit status: ``exit_status`` of the run's view, a matrix's or a pair's
    own when one ran and nothing stopped it first."""
    failure = crash or run.failure
    status = exit_status(signalled, failure, run.view)
    if run.matrix is not None and not (signalled or failure):
        return run.matrix.exit_status(status)
    return run.pair.exit_status(status) if run.pair else status


def app_exit_messages(run: RunController, crash: RunError | None) -> list[str]:
    """What to say on stderr once the terminal is back: ``exit_messages`` of the run's view,
    a matrix's or a pair's own when one ran and did not fail."""
    failure = crash or run.failure
    messages = exit_messages(failure, run.view)
    if failure is not None:
        return messages
    if run.matrix is not None:
        return run.matrix.exit_messages(messages)
    return run.pair.exit_messages(messages) if run.pair else messages


def exit_status(
    signalled: int | None, failure: InputError | RunError | None, view: EvaluationView | None
) -> int:
    """0 done (gate held), 1 gate failed, 4 the confident gate undecided, 2/3 could not run,
    130 cancelled, 128+N signal N."""
    if signalled is not None:
        return signalled_exit(signalled)
    if failure is not None:
        return failure.exit_code
    if view is None:
        return ExitCode.OK
    if view.status in ("running", "cancelled"):
        return ExitCode.CANCELLED
    if view.status == "failed":
        return ExitCode.CANNOT_RUN
    return view.reading().exit_code


def exit_messages(failure: InputError | RunError | None, view: EvaluationView | None) -> list[str]:
    """Why it failed, what was not run and how to resume it, or which cases the gate names."""
    if failure is not None:
        return [f"passk-tui: {failure}"]
    if view is None:
        return []
    if view.status in ("running", "cancelled"):
        return [
            f"passk-tui: {not_run_text(view.extent())}",
            f"passk-tui: {resume_text(view.evaluation_id)}",
        ]
    return [f"passk-tui: {line}" for line in view.read().gate_lines()]
