"""The subcommands of ``passk-tui``, in one table: what runs each, and how ``--help`` lists it.

Each one's module is imported only when it is asked for, so ``--help`` and a plain headless
run load no comparison, web server or Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import NamedTuple


class Subcommand(NamedTuple):
    """``passk-tui NAME ARGUMENTS``: the module and function that run NAME with the rest of
    argv, and how ``--help`` lists it."""

    module: str
    function: str
    arguments: str
    summary: str
    leaves: bool = False
    """Run as the program, it ends the process at once when done (its results on disk, its
    lines printed): freeing what it holds costs more than the work (an import's 50,000
    records and their readings, 0.1 s), and the process is over anyway."""


SUBCOMMANDS: dict[str, Subcommand] = {
    "init": Subcommand(
        "passk_tui.cli.init", "run_init", "", "write a starter cases.toml and agents.toml here"
    ),
    "history": Subcommand("passk_tui.cli.history", "run_history", "", "list stored evaluations"),
    "compare": Subcommand(
        "passk_tui.cli.compare", "run_compare", "A B", "compare two stored evaluations per case"
    ),
    "plan": Subcommand(
        "passk_tui.cli.plan", "run_plan", "", "how many attempts a gate needs, and their cost"
    ),
    "serve": Subcommand("passk_tui.cli.serve", "run_serve", "", "serve the app in a browser"),
    "import": Subcommand(
        "passk_tui.cli.import_logs",
        "run_import",
        "",
        "store another tool's run: inspect, promptfoo, tau-bench, lm-eval, jsonl",
        leaves=True,
    ),
    "judge-check": Subcommand(
        "passk_tui.cli.judge_check",
        "run_judge_check",
        "LABELS.jsonl",
        "is the judge right? its accuracy and Cohen's kappa against a person's labels",
    ),
}


def subcommand(name: str) -> Callable[[list[str]], int]:
    """The function that runs subcommand ``name`` with the rest of argv (its module imported now)."""
    found = SUBCOMMANDS[name]
    run: Callable[[list[str]], int] = getattr(import_module(found.module), found.function)
    return run
