"""What the app's process exits with, and says on stderr once the terminal is back.

The same outcomes as the headless CLI's: the gate's reading decides (core/gate.py);
this only picks which of the app's states applies.
"""

from __future__ import annotations

from passk_tui.core.errors import ExitCode, InputError, RunError, signalled_exit
from passk_tui.core.render.extent_text import not_run_text
from passk_tui.core.render.reproduce import resume_text
from passk_tui.tui.view import EvaluationView


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
