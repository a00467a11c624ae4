"""The exit codes every face uses, and the two kinds of failure a user can cause or meet.

One enum, so the CLI, the app, ``serve`` and the Python API cannot drift apart; the numbers
are a contract scripts and CI read, so they never change meaning.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The process's exit status, as the README and ``passk-tui --help`` list them."""

    #: Done, and the gate (if any) held.
    OK = 0
    #: The ``--require`` gate failed, or with ``--fail-on-regression`` a case regressed.
    GATE_FAILED = 1
    #: Bad flags or input files: one line naming the file, line and problem.
    BAD_INPUT = 2
    #: The evaluation could not run (stack unreachable, key refused, stdout refused the
    #: results, ...), or the app crashed.
    CANNOT_RUN = 3
    #: The confident gate could not decide some case (none failed).
    UNDECIDED = 4
    #: Everything else went well, only the ``--export`` could not be written.
    EXPORT_FAILED = 5
    #: A run stopped by a signal exits 128 + its number: 129 SIGHUP, 143 SIGTERM.
    SIGNALLED = 128
    #: The user cancelled (Ctrl-C, or quit during) the evaluation: 128 + SIGINT.
    CANCELLED = 130


def signalled_exit(signum: int) -> int:
    """The exit status of a run stopped by signal ``signum``: 128 + it."""
    return ExitCode.SIGNALLED + signum


class InputError(Exception):
    """Bad flags or input files: a one-line message naming the file, line and problem (exit 2)."""

    exit_code = ExitCode.BAD_INPUT


class RunError(Exception):
    """The evaluation could not run: stack unreachable, key refused, agent or version not found (exit 3)."""

    exit_code = ExitCode.CANNOT_RUN
