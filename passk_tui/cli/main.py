"""The console script: a subcommand by its name, else a run (the default), else the app.

Each subcommand's module is imported only when it is asked for, so ``--help`` and a
plain headless run load no comparison, web server or Textual.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib import import_module
from typing import NoReturn

#: ``passk-tui NAME ...``: the module and function that run NAME with the rest of argv.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "init": ("passk_tui.cli.init", "run_init"),
    "history": ("passk_tui.cli.history", "run_history"),
    "compare": ("passk_tui.cli.compare", "run_compare"),
    "serve": ("passk_tui.cli.serve", "run_serve"),
    "plan": ("passk_tui.cli.plan", "run_plan"),
    "import": ("passk_tui.cli.import_logs", "run_import"),
}


def main(argv: list[str] | None = None) -> int:
    """Run ``passk-tui`` with ``argv`` (default: the process's); the exit status is returned."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        module, name = SUBCOMMANDS[argv[0]]
        subcommand: Callable[[list[str]], int] = getattr(import_module(module), name)
        return subcommand(argv[1:])
    from passk_tui.cli.flags import parse

    args = parse(argv)
    if args.headless or not sys.stdout.isatty():
        from passk_tui.cli.run import run_headless

        return run_headless(args, os.environ)
    from passk_tui.tui.launch import run_app

    return leave(run_app(args, os.environ))


def leave(status: int) -> NoReturn:
    """End the process now, once the app has closed: its results are on disk and its last
    lines printed; tearing down its thousands of widgets and styles took a third of a
    second after the last frame, every time the user quit."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
