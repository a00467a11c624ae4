"""`passk-tui judge-check LABELS.jsonl --agent A`: is the judge right? Against a person's labels."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from passk_tui.cli.flags import FlagParser
from passk_tui.cli.output import fail, print_out, say
from passk_tui.core.checks.judge import MAX_VOTES
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.core.inputs.settings import (
    DEFAULT_TIMEOUT,
    parse_agent_name,
    parse_concurrency,
    parse_confidence,
    parse_require,
    parse_timeout,
    parse_version,
    parse_whole_number,
)
from passk_tui.core.run.labels import load_labels
from passk_tui.core.text.figure_text import outward_ends
from passk_tui.evaluations.judge_check import check_judge
from passk_tui.evaluations.settings_text import flag

#: The accuracy's interval level unless --confidence says otherwise.
DEFAULT_LEVEL = 0.95
#: Labelled answers judged at once unless --concurrency says otherwise.
DEFAULT_JUDGING = 4


def build_judge_check_parser() -> argparse.ArgumentParser:
    """The flags of `passk-tui judge-check` (its own parser: the run flags do not apply)."""
    parser = FlagParser(
        prog="passk-tui judge-check",
        description=(
            "Is the judge right? Ask a judge agent about answers a person labelled (JSON Lines, "
            'each {"input", "answer", "rubric", "label": "pass"|"fail"}), as a judge check '
            "would in an evaluation, and print its accuracy with the exact (Clopper-Pearson) "
            "interval, Cohen's kappa against the labels and the confusion counts. An answer the "
            "judge could not decide counts as not right."
        ),
        epilog=(
            "exit status: 0 measured, 1 --require given and the accuracy's lower bound is under "
            "it, 2 bad flags or a bad labels file, 3 the judge could not be asked"
        ),
    )
    parser.add_argument("labels", metavar="LABELS.jsonl", help="the labelled answers")
    parser.add_argument("--agent", metavar="NAME", required=True, help="the judge agent")
    parser.add_argument("--version", metavar="V", help="its version (default: its newest)")
    parser.add_argument("--votes", metavar="N", help="votes per answer, odd (default 1)")
    parser.add_argument("--agents", metavar="PATH", help="the agents file (default ./agents.toml)")
    parser.add_argument(
        "--require", metavar="R", help="exit 1 when the accuracy's lower bound is under R"
    )
    parser.add_argument(
        "--confidence", metavar="C", help="the interval's level, 0 < C < 1 (default 0.95)"
    )
    parser.add_argument(
        "--concurrency", metavar="N", help=f"answers judged at once (default {DEFAULT_JUDGING})"
    )
    parser.add_argument(
        "--timeout", metavar="S", help=f"seconds per judge Run (default {DEFAULT_TIMEOUT:g})"
    )
    return parser


def parse_votes(text: str) -> int:
    """An odd whole number of votes, at least 1."""
    votes = parse_whole_number(text)
    if not 1 <= votes <= MAX_VOTES:
        raise InputError(f"must be between 1 and {MAX_VOTES}, got {votes}")
    if votes % 2 == 0:
        raise InputError(f"must be odd (a majority decides), got {votes}")
    return votes


def run_judge_check(argv: list[str]) -> int:
    """Parse, judge every labelled answer, print the figures; the return value is the exit status."""
    args = build_judge_check_parser().parse_args(argv)
    try:
        agent = flag("agent", args.agent, parse_agent_name, "")
        version = flag("version", args.version, parse_version, None)
        votes = flag("votes", args.votes, parse_votes, 1)
        require = flag("require", args.require, parse_require, None)
        level = flag("confidence", args.confidence, parse_confidence, DEFAULT_LEVEL)
        concurrency = flag("concurrency", args.concurrency, parse_concurrency, DEFAULT_JUDGING)
        timeout = flag("timeout", args.timeout, parse_timeout, DEFAULT_TIMEOUT)
        labelled = load_labels(Path(args.labels))
        result = asyncio.run(
            check_judge(
                labelled,
                agent,
                version,
                votes,
                agents_path=args.agents,
                concurrency=concurrency,
                timeout=timeout,
            )
        )
    except (InputError, RunError) as exc:
        return fail(exc)
    except KeyboardInterrupt:
        say("judge-check: interrupted")
        return ExitCode.CANCELLED
    lines = []
    if result.judge is not None:
        lines.append(result.judge.line())
    lines.extend(result.labels.lines(level))
    if not print_out("".join(f"{line}\n" for line in lines)):
        return ExitCode.CANNOT_RUN
    if require is None:
        return ExitCode.OK
    low = result.labels.interval(level).low
    if low < require:
        shown, _ = outward_ends(result.labels.interval(level))
        say(f"judge-check: the accuracy's lower bound {shown} is under --require {args.require}")
        return ExitCode.GATE_FAILED
    return ExitCode.OK
