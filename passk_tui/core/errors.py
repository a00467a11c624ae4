"""The two kinds of failure a user can cause or meet, each with its exit code, and the exit
codes of a stopped run, which both faces use."""

from __future__ import annotations

#: The user cancelled (Ctrl-C, or quit during) the evaluation.
EXIT_CANCELLED = 130
#: A run stopped by a signal exits 128 + its number: 130 SIGINT, 143 SIGTERM, 129 SIGHUP.
EXIT_SIGNALLED = 128


class InputError(Exception):
    """Bad flags or input files: a one-line message naming the file, line and problem (exit 2)."""

    exit_code = 2


class RunError(Exception):
    """The evaluation could not run: stack unreachable, key refused, agent or version not found (exit 3)."""

    exit_code = 3
