"""The command line: flags shared by the app and headless mode (no Textual here: --help stays fast)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from typing import NoReturn

from passk_tui.cli.subcommands import SUBCOMMANDS, subcommand
from passk_tui.core.errors import ExitCode
from passk_tui.core.inputs.schema import FIELDS, Group
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


#: What --help says of each exit status (the numbers are ``ExitCode``'s).
EXIT_WORDS = {
    ExitCode.OK: "done (and the gate held)",
    ExitCode.GATE_FAILED: "the --require gate failed (or, with --fail-on-regression, a case or "
    "the suite regressed)",
    ExitCode.BAD_INPUT: "bad flags or input files",
    ExitCode.CANNOT_RUN: "the evaluation could not run",
    ExitCode.UNDECIDED: "the confident gate could not decide some case (none failed)",
    ExitCode.EXPORT_FAILED: "only the --export could not be written",
    ExitCode.CANCELLED: "cancelled",
}


def _subcommand_lines() -> list[str]:
    """--help's list of subcommands, each call in a column as wide as the longest, so that
    no summary runs into its call (``judge-check LABELS.jsonl`` is past 24 characters)."""
    calls = [
        (f"passk-tui {name} {sub.arguments}".rstrip(), sub.summary)
        for name, sub in SUBCOMMANDS.items()
    ]
    calls.append(("passk-tui help [NAME]", "this help, or subcommand NAME's"))
    width = max(len(call) for call, _ in calls) + 2
    return [f"  {call:<{width}}{summary}" for call, summary in calls]


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
                *_subcommand_lines(),
                "",
                textwrap.fill(
                    "exit status: "
                    + ", ".join(f"{int(code)} {words}" for code, words in EXIT_WORDS.items()),
                    HELP_WIDTH,
                ),
            ]
        ),
    )
    parser.words = [*SUBCOMMANDS, "help"]
    parser.list_flags = frozenset({"export"})
    groups = {group: parser.add_argument_group(group.value) for group in Group}
    for declared in FIELDS:
        if declared.switch:
            groups[declared.group].add_argument(
                declared.flag, action="store_true", default=None, help=declared.help
            )
        else:
            groups[declared.group].add_argument(
                declared.flag, metavar=declared.metavar, help=declared.help
            )
    what, how = groups[Group.WHAT], groups[Group.HOW]
    what.add_argument("--demo", action="store_true", help="the bundled demo suite and agent")
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
            "Continue one with `passk-tui --resume ID`. "
            "--flaky: per case, how often its verdict (the gate's, else all passed) changed "
            "between evaluations of the same version, then per version change the cases whose "
            "pass rate moved beyond chance (Fisher's exact test, Holm over the cases)."
        ),
        epilog=(
            "exit status: 0 listed, 2 bad flags, or --flaky with no stored evaluation "
            "(of that agent)"
        ),
    )
    parser.add_argument(
        "--flaky",
        action="store_true",
        help="flakiness over time instead of the list: one agent's evaluations, per case",
    )
    parser.add_argument(
        "--agent",
        metavar="A",
        help="with --flaky: whose evaluations (default: the newest evaluation's agent)",
    )
    args = parser.parse_args(argv)
    if args.agent is not None and not args.flaky:
        parser.error("--agent: only with --flaky (the list shows every agent)")
    return args
