"""`--confidence` from the CLI, to the character: the two added columns, the stderr lines, exit 1/4/0."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support import CLI_AGENTS as AGENTS
from tests.support.cli import SEED_TABLE, scripted

CONFIDENT_TABLE = """\
case        passed  wrong  errored  pass@1  pass@3  all passed  pass@3 95% CI  gate
----------  ------  -----  -------  ------  ------  ----------  -------------  ---------
arithmetic  3/5     2      0        0.60    1.00    no          0.37-1.00      undecided
json-shape  0/5     4      1        0.00    0.00    no          0.00-0.90      fail
summary     5/5     0      0        1.00    1.00    yes         0.85-1.00      undecided
"""


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    """A private copy of the scripted agent, so its scripts start over."""
    folder = tmp_path / "agents"
    shutil.copytree(AGENTS, folder)
    return folder


def gate_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("passk-tui: gate:")]


def seed(agents: Path, *args: str):
    return scripted(agents, "--cases", str(agents / "seed.toml"), "--concurrency", "3", *args)


def test_a_failing_case_is_exit_1_and_every_undecided_one_is_named(agents: Path) -> None:
    result = seed(agents, "--require", "0.9", "--confidence", "0.95")
    assert result.returncode == 1, result.stderr
    assert result.stdout == CONFIDENT_TABLE
    assert gate_lines(result.stderr) == [
        "passk-tui: gate: arithmetic: undecided: pass@3 95% CI 0.37-1.00, 0 of 5 errored, "
        "includes --require 0.9 (about 771 more attempts would decide it half the time)",
        "passk-tui: gate: json-shape: fail: pass@3 95% CI 0.00-0.90, 1 of 5 errored, "
        "is below --require 0.9",
        "passk-tui: gate: summary: undecided: pass@3 95% CI 0.85-1.00, 0 of 5 errored, "
        "includes --require 0.9 (about 3 more attempts would decide it half the time)",
        "passk-tui: gate: pass@3 at or above 0.9 at 95% per case: 0 pass, 1 fail, 2 undecided",
    ]


def test_undecided_and_no_fail_is_exit_4(agents: Path) -> None:
    result = seed(agents, "--require", "0.5", "--confidence", "0.95")
    assert result.returncode == 4, result.stderr
    rows = result.stdout.splitlines()
    assert [row.split()[-1] for row in rows[2:]] == ["undecided", "undecided", "pass"]
    assert [line.split(": ")[2] for line in gate_lines(result.stderr)] == [
        "arithmetic",
        "json-shape",
        "pass@3 at or above 0.5 at 95% per case",
    ]


def test_every_case_decided_pass_is_exit_0(agents: Path) -> None:
    result = seed(agents, "--require", "0", "--confidence", "0.8")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].endswith("pass@3 80% CI  gate")
    assert gate_lines(result.stderr) == [
        "passk-tui: gate: pass@3 at or above 0 at 80% per case: 3 pass, 0 fail, 0 undecided"
    ]


def test_confidence_without_require_adds_only_the_interval_column(agents: Path) -> None:
    result = seed(agents, "--confidence", "0.95")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].endswith("all passed  pass@3 95% CI")


def test_bad_confidence_is_one_line_and_exit_2_before_anything_runs(agents: Path) -> None:
    for bad, message in (
        ("1", "--confidence: must be strictly between 0 and 1, got 1"),
        ("x", "--confidence: must be a number between 0 and 1, got 'x'"),
    ):
        result = seed(agents, "--confidence", bad)
        assert result.returncode == 2
        assert result.stdout == "" and result.stderr == f"passk-tui: {message}\n"
    assert not (agents / "calls.log").exists()


def test_confidence_is_read_anew_on_resume(agents: Path) -> None:
    first = seed(agents, "--require", "0.9")
    assert first.returncode == 1 and first.stdout == SEED_TABLE
    shown = scripted(agents, "--resume", "last", "--confidence", "0.95")
    assert shown.returncode == 1, shown.stderr
    assert shown.stdout == CONFIDENT_TABLE
    undecided = scripted(agents, "--resume", "last", "--require", "0.5", "--confidence", "0.95")
    assert undecided.returncode == 4, undecided.stderr
    plain = scripted(agents, "--resume", "last")
    assert plain.stdout == SEED_TABLE and plain.returncode == 1
