"""The command line: flags shared by the app and headless mode (no Textual here: --help stays fast)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from typing import NoReturn

from passk_tui.cli.subcommands import SUBCOMMANDS, subcommand
from passk_tui.core.render.gate_meaning import CONFIDENT_GATE_MEANING
from passk_tui.core.text.mentions import near_hint
from passk_tui.core.text.terminal_text import message_line
from passk_tui.core.version import __version__

#: Width the main --help is wrapped to by hand (its subcommand list keeps its own lines).
HELP_WIDTH = 78


class FlagParser(argparse.ArgumentParser):
    """argparse that answers a bad flag with one line and exit 2, not a usage block."""

    #: Flags whose value is a list by design (``--expect`` given again, ``--compare A B``).
    list_flags: frozenset[str] = frozenset()
    #: Words that may stand where a stray word was typed (the main parser's subcommands).
    words: Sequence[str] = ()

    def error(self, message: str) -> NoReturn:
        # The message quotes what was typed, which may hold a newline or an ESC.
        sys.stderr.write(f"passk-tui: {message_line(message)}\n")
        raise SystemExit(2)

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """argparse's, but ``--flag=--`` is refused: Python 3.11 gives such a flag an empty
        list, not a string, and the first use of it was a traceback."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._hint(extras[0])}")
        for name, value in vars(parsed).items():
            if not isinstance(value, list):
                continue
            if name not in self.list_flags or not all(isinstance(v, str) for v in value):
                self.error(f"argument --{name.replace('_', '-')}: expected one argument")
        return parsed

    def _hint(self, typed: str) -> str:
        """`` (did you mean '--agent'?)`` for a mistyped flag (or subcommand), as for check kinds."""
        if typed.startswith("-"):
            flags = [s for action in self._actions for s in action.option_strings]
            return near_hint(typed.split("=", 1)[0], flags)
        return near_hint(typed, self.words)


def build_parser() -> argparse.ArgumentParser:
    parser = FlagParser(
        prog="passk-tui",
        usage=f"passk-tui [FLAGS]\n       passk-tui {{{','.join([*SUBCOMMANDS, 'help'])}}} ...",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill(
            "Run every case several times on one exact agent version and report, per case, "
            "pass@1, the unbiased pass@k and whether every attempt passed, with wrong answers "
            "kept apart from errored Runs. Opens the app; --headless (or a non-terminal stdout) "
            "prints the plain table instead.",
            HELP_WIDTH,
        ),
        epilog="\n".join(
            [
                "subcommands (`passk-tui help NAME` for each):",
                *(
                    f"  {f'passk-tui {name} {sub.arguments}':<24}{sub.summary}"
                    for name, sub in SUBCOMMANDS.items()
                ),
                f"  {'passk-tui help [NAME]':<24}this help, or subcommand NAME's",
                "",
                textwrap.fill(
                    "exit status: 0 done (and the gate held), 1 the --require gate failed "
                    "(or, with --fail-on-regression, a case or the suite regressed), "
                    "2 bad flags or input files, 3 the evaluation could not run, "
                    "4 the confident gate could not decide some case (none failed), "
                    "5 only the --export could not be written, 130 cancelled",
                    HELP_WIDTH,
                ),
            ]
        ),
    )
    parser.words = [*SUBCOMMANDS, "help"]
    parser.list_flags = frozenset({"export"})
    what = parser.add_argument_group("what to measure")
    what.add_argument(
        "--agent", metavar="ID", help="agent id on the stack, else a local agent's name"
    )
    what.add_argument(
        "--version",
        metavar="N",
        help="the exact agent version (integer); --version alone prints passk-tui's own",
    )
    what.add_argument("--cases", metavar="PATH", help="cases file (.toml or .jsonl)")
    what.add_argument("--attempts", metavar="N", help="attempts per case (default 5)")
    what.add_argument(
        "--max-attempts",
        metavar="N",
        help="adaptive: after --attempts, more attempts for each undecided case, up to N",
    )
    what.add_argument(
        "--precision",
        metavar="W",
        help="adaptive without --require: a case is decided once its pass@1 interval is at most "
        "W wide (default 0.2)",
    )
    what.add_argument(
        "--k", metavar="K", help="the k in pass@k (default 3, or --attempts if smaller)"
    )
    what.add_argument(
        "--completion-only",
        action="store_true",
        default=None,
        help="accept cases with no check: such a case passes when its Turn completes",
    )
    what.add_argument(
        "--baseline",
        metavar="V",
        help="also run version V on the same cases, interleaved, and print the comparison "
        "(as `passk-tui compare`); --require then gates the candidate (--version)",
    )
    what.add_argument("--demo", action="store_true", help="the bundled demo suite and agent")

    how = parser.add_argument_group("how to run")
    how.add_argument(
        "--require", metavar="X", help="exit 1 when any case's pass@k is below X (0..1)"
    )
    how.add_argument(
        "--confidence",
        metavar="C",
        help=f"level of every interval, 0 < C < 1 (default 0.95 where shown); "
        f"{CONFIDENT_GATE_MEANING}",
    )
    how.add_argument(
        "--family-wise",
        action="store_true",
        default=None,
        help="with --require and --confidence: the gate's promise holds for the whole suite "
        "(each case judged at 1-(1-C)/M, Bonferroni), not per case",
    )
    how.add_argument("--concurrency", metavar="N", help="most Runs in flight at once (default 4)")
    how.add_argument("--timeout", metavar="S", help="per-attempt deadline in seconds (default 300)")
    how.add_argument("--stack", metavar="URL", help="the stack address (env PASSK_STACK)")
    how.add_argument("--key", metavar="KEY", help="the stack key (env PASSK_KEY is preferred)")
    how.add_argument("--agents", metavar="PATH", help="local agents file (default ./agents.toml)")
    how.add_argument(
        "--executor",
        metavar="WHERE",
        help="where local command agents run: local (default) or ray (a Ray cluster)",
    )
    how.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="with --executor ray: the cluster (env RAY_ADDRESS; none: a Ray started here)",
    )
    how.add_argument(
        "--headless", action="store_true", help="no UI: progress on stderr, table on stdout"
    )
    how.add_argument(
        "--resume",
        metavar="ID",
        help="continue an interrupted evaluation ('last' = newest); with --attempts N (more "
        "than stored) or --max-attempts N, extend it; either of a --baseline pair resumes both",
    )
    how.add_argument(
        "--export",
        metavar="PATH",
        action="append",
        help="also write results: .json .csv .md .xml .html (given again: each one written)",
    )
    money = parser.add_argument_group("what it may cost")
    money.add_argument(
        "--price-in", metavar="P", help="a stack agent's price per million input tokens"
    )
    money.add_argument(
        "--price-out", metavar="P", help="a stack agent's price per million output tokens"
    )
    money.add_argument(
        "--budget-runs",
        metavar="N",
        help="start at most N Runs in all (resumes included; with --baseline, per version); "
        "then end 'budget spent'; a resume may lower it, never raise it",
    )
    money.add_argument(
        "--budget-cost",
        metavar="USD",
        help="start no attempt once this much is spent (needs prices); then end 'budget spent'",
    )
    how.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="with --baseline: exit 1 when any case (or the suite) regressed, naming each",
    )
    parser.add_argument(
        "-V",
        "--program-version",
        action="version",
        version=PROGRAM_VERSION,
        help="print passk-tui's version and exit (so does --version alone)",
    )
    return parser


#: What -V (and --version alone) prints.
PROGRAM_VERSION = f"passk-tui {__version__}"


def parse(argv: list[str]) -> argparse.Namespace:
    """The run's flags; ``--version`` with no N (and nothing else) prints the program's version:
    that is what the flag means to most programs, and a run needs N anyway."""
    if argv == ["--version"]:
        print(PROGRAM_VERSION)
        raise SystemExit(0)
    return build_parser().parse_args(argv)


def show_help(argv: list[str]) -> int:
    """``passk-tui help [NAME]``: the main --help, or subcommand NAME's."""
    if not argv:
        build_parser().print_help()
        return 0
    if argv[0] in SUBCOMMANDS:
        return subcommand(argv[0])(["--help"])
    build_parser().error(f"help: no subcommand {argv[0]!r}{near_hint(argv[0], [*SUBCOMMANDS])}")


def parse_history(argv: list[str]) -> argparse.Namespace:
    """`passk-tui history`: no flags but --help (the store is found as for a run)."""
    parser = FlagParser(
        prog="passk-tui history",
        description=(
            "List the evaluations in the store ($PASSK_DATA_DIR or the user data folder), "
            "newest first: id, when, agent, version, cases, attempts recorded, status "
            "(done, interrupted, cancelled, failed, running, or not started: it failed before "
            "its first attempt) and the cases under the gate. "
            "Continue one with `passk-tui --resume ID`."
        ),
    )
    return parser.parse_args(argv)
