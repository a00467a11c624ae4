"""What the command line says: one line on stderr, the results on stdout, a stopped run's exit.

Every subcommand speaks through these, so a message is always one terminal-safe line
prefixed ``passk-tui:``, and a stdout that cannot take the results is said, not a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from passk_tui.core.errors import ExitCode, InputError, RunError, signalled_exit
from passk_tui.core.render.reproduce import resume_text
from passk_tui.core.text.terminal_text import message_line

if TYPE_CHECKING:
    from passk_tui.core.reading.evaluation import EvaluationReading


def interrupted(evaluation_id: str | None, what: str | None = None) -> int:
    """Ctrl-C before the run's own handlers were in place: one line (``what`` became of the
    work, when it is not a run to resume), how to resume, 130."""
    sys.stderr.write("\n")
    say(f"interrupted: {what}" if what else "interrupted")
    if evaluation_id is not None:
        resume_hint(evaluation_id)
    return ExitCode.CANCELLED


def stopped_exit(stopped_by: list[int]) -> int:
    """The exit status of a stopped run: 128 + the first stop signal's number, else 130."""
    return signalled_exit(stopped_by[0]) if stopped_by else ExitCode.CANCELLED


def resume_hint(evaluation_id: str) -> None:
    """How to go on with an evaluation that did not finish: one line naming its id."""
    say(resume_text(evaluation_id))


def say(line: str) -> None:
    """One line on stderr, outside text made terminal-safe (so it stays one line)."""
    sys.stderr.write(f"passk-tui: {message_line(line)}\n")
    sys.stderr.flush()


def budget_lines(sides: Iterable[tuple[str, EvaluationReading]]) -> None:
    """Each evaluation of a matrix or a --baseline pair whose budget stopped it, said as a
    single run says it (``budget spent: …``), after the target it is: each holds its own."""
    for side, reading in sides:
        line = reading.budget_line()
        if line is not None:
            say(f"{side} {line}")


def print_out(text: str, evaluation_id: str | None = None) -> bool:
    """Write ``text`` to stdout; False (said in one line) when stdout cannot take it."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        # Nothing more can reach stdout: point it at /dev/null so that the interpreter's
        # own flush at exit does not fail a second time with a traceback.
        to_devnull(sys.stdout)
        problem = f"cannot write the results to stdout: {exc.strerror or exc}"
        if evaluation_id is not None:
            problem += f"; they are stored (passk-tui --resume {evaluation_id} shows them)"
        say(problem)
        return False
    return True


def to_devnull(*files: TextIO) -> None:
    """Point each file's descriptor at /dev/null: what is still written goes nowhere, quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for file in files:
        os.dup2(devnull, file.fileno())
    os.close(devnull)


def fail(exc: InputError | RunError) -> int:
    """The error as its one line on stderr; its exit code returned."""
    say(str(exc))
    return exc.exit_code


def export_said(write: Callable[[], Path], code: int) -> int:
    """Write an export (``write`` returns where): ``wrote PATH`` on stderr, or its failure in
    one line and exit 5 unless the status already says more."""
    try:
        written = write()
    except (InputError, RunError) as exc:
        say(f"export failed: {exc}")
        return code or ExitCode.EXPORT_FAILED
    say(f"wrote {written}")
    return code
