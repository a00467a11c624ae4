"""What a newcomer types first: --help names every subcommand, --version and `help` answer,
and a mistyped flag or subcommand is answered with the name it was probably meant to be."""

from __future__ import annotations

import pytest

from passk_tui.cli.subcommands import SUBCOMMANDS
from passk_tui.core.version import __version__
from tests.support.cli import run


def test_the_help_names_every_subcommand_and_help_itself() -> None:
    shown = run("--help", headless=False)
    assert shown.returncode == 0, shown.stderr
    for name in [*SUBCOMMANDS, "help"]:
        assert f"\n  passk-tui {name} " in shown.stdout, name
    assert "passk-tui compare A B" in shown.stdout
    assert run("help", headless=False).stdout == shown.stdout


def test_each_subcommands_summary_stands_apart_from_its_call() -> None:
    """Before, ``judge-check LABELS.jsonl`` filled its 24-character column and ran into its
    summary: ``passk-tui judge-check LABELS.jsonlis the judge right?``."""
    listed = run("--help", headless=False).stdout.split("subcommands (")[1].split("\n\n")[0]
    lines = listed.splitlines()[1:]
    assert len(lines) == len(SUBCOMMANDS) + 1
    starts = set()
    for line in lines:
        _, gap, summary = line.strip().partition("  ")
        assert gap and summary.strip(), line
        starts.add(line.index(summary.strip()))
    assert len(starts) == 1, lines  # one column for every summary
    assert "passk-tui judge-check LABELS.jsonl  is the judge right?" in listed


def test_help_names_a_subcommands_own_help() -> None:
    shown = run("help", "compare", headless=False)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: passk-tui compare")
    wrong = run("help", "comapre", headless=False)
    assert wrong.returncode == 2 and wrong.stdout == ""
    assert wrong.stderr == "passk-tui: help: no subcommand 'comapre' (did you mean 'compare'?)\n"


@pytest.mark.parametrize("flag", ["--version", "-V", "--program-version"])
def test_version_alone_prints_the_programs_version(flag: str) -> None:
    shown = run(flag, headless=False)
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, f"passk-tui {__version__}\n", "")


def test_version_with_other_flags_still_wants_the_agents_version() -> None:
    shown = run("--demo", "--version")
    assert shown.returncode == 2
    assert shown.stderr == "passk-tui: argument --version: expected one argument\n"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--agnet", "x"], "unrecognized arguments: --agnet x (did you mean '--agent'?)"),
        (["--atempts=3", "--demo"], "unrecognized arguments: --atempts=3 (did you mean '--attempts'?)"),
        (["comapre", "a", "b"], "unrecognized arguments: comapre a b (did you mean 'compare'?)"),
        (["--xyzzy"], "unrecognized arguments: --xyzzy"),
        (["compare", "a", "b", "--confidnce", "0.9"],
         "unrecognized arguments: --confidnce 0.9 (did you mean '--confidence'?)"),
        (["plan", "--requrie", "0.8"], "unrecognized arguments: --requrie 0.8 (did you mean '--require'?)"),
    ],
)  # fmt: skip
def test_a_typo_is_answered_with_the_name_it_was_meant_to_be(argv: list[str], said: str) -> None:
    shown = run(*argv, headless=False)
    assert shown.returncode == 2 and shown.stderr == f"passk-tui: {said}\n"
