"""The two kinds of failure a user can cause or meet, each with its exit code."""

from __future__ import annotations


class InputError(Exception):
    """Bad flags or input files: a one-line message naming the file, line and problem (exit 2)."""

    exit_code = 2


class RunError(Exception):
    """The evaluation could not run: stack unreachable, key refused, agent or version not found (exit 3)."""

    exit_code = 3
