"""The console script: a subcommand by its name, else a run (the default), else the app.

Each subcommand's module is imported only when it is asked for, so ``--help`` and a
plain headless run load no comparison, web server or Textual.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NoReturn

from passk_tui.cli.subcommands import SUBCOMMANDS, subcommand


def main(argv: list[str] | None = None) -> int:
    """Run ``passk-tui`` with ``argv`` (default: the process's); the exit status is returned."""
    program = argv is None  # the process's own command line: its end is ours to make
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        status = subcommand(argv[0])(argv[1:])
        if program and SUBCOMMANDS[argv[0]].leaves:
            leave(status)
        return status
    from passk_tui.cli.flags import parse, show_help

    if argv[:1] == ["help"]:
        return show_help(argv[1:])
    args = parse(argv)
    if args.headless or not sys.stdout.isatty():
        from passk_tui.cli.run import run_headless

        return run_headless(args, os.environ)
    from passk_tui.tui.app.launch import run_app

    return leave(run_app(args, os.environ))


def leave(status: int) -> NoReturn:
    """End the process now, its work done: its results are on disk and its last lines
    printed. Tearing down the app's thousands of widgets and styles took a third of a second
    after the last frame, every time the user quit; freeing an import's records, a tenth."""
    for stream in (sys.stdout, sys.stderr):
        # A reader gone (`| head`) or a stream closed: nothing more can be said.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
