"""n chosen by looking, from the CLI: an extended evaluation reads anytime-valid intervals in its
table, gate and .json; an adaptive one's stop rule is not re-decided by a new --confidence alone."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from passk_tui.core.stats.rates.interval_choice import EXTENDED, FIXED_AND_REACHED
from passk_tui.core.stats.rates.intervals import Interval, pass_at_k_interval
from passk_tui.core.text.figure_text import interval_text
from tests.support import CLI_AGENTS as AGENTS
from tests.support.cli import scripted
from tests.support.judging import scipy_running

# The scripted seed's cases repeat their scripts: 10 attempts are these, by attempt number.
TEN = {
    "arithmetic": bytes([1, 0, 1, 0, 1] * 2),
    "json-shape": bytes(10),
    "summary": bytes([1] * 10),
}


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    folder = tmp_path / "agents"
    shutil.copytree(AGENTS, folder)
    return folder


def seed(agents: Path, *args: str):
    return scripted(agents, "--cases", str(agents / "seed.toml"), "--concurrency", "3", *args)


def cells(stdout: str, column: int) -> dict[str, str]:
    """Each case's cell in the table's ``column`` (counted from 0; the CI, then the gate)."""
    return {row.split()[0]: row.split()[column] for row in stdout.splitlines()[2:]}


def anytime_text(order: bytes) -> str:
    """The pass@3 95% interval the confidence sequence gives (scipy's), as a cell shows it."""
    return interval_text(pass_at_k_interval(Interval(*scipy_running(order, 0.95)), 3))


def test_extending_an_undecided_evaluation_switches_every_reading_to_anytime_valid(
    agents: Path, tmp_path: Path
) -> None:
    first = seed(agents, "--require", "0.5", "--confidence", "0.95")
    assert first.returncode == 4, first.stderr
    assert "intervals:" not in first.stderr  # n fixed in advance and reached: exact, unsaid

    export = tmp_path / "x.json"
    extended = scripted(agents, "--resume", "last", "--attempts", "10", "--export", str(export))
    assert extended.returncode == 4, extended.stderr
    assert cells(extended.stdout, 7) == {name: anytime_text(o) for name, o in TEN.items()}
    # 6 of 10 would pass the exact gate (0.59-1.00); read by looking, it is still undecided.
    assert cells(extended.stdout, 8) == {
        "arithmetic": "undecided",
        "json-shape": "undecided",
        "summary": "pass",
    }
    assert (
        "passk-tui: intervals: 95% anytime-valid (beta-binomial mixture): " + EXTENDED
    ) in extended.stderr.splitlines()
    assert any(
        line.startswith(
            "passk-tui: gate: arithmetic: undecided: pass@3 95% CI "
            f"{anytime_text(TEN['arithmetic'])}, 0 of 10 errored, includes --require 0.5"
        )
        for line in extended.stderr.splitlines()
    ), extended.stderr
    intervals = json.loads(export.read_text())["intervals"]
    assert intervals == {
        "level": 0.95,
        "method": "beta-binomial-mixture",
        "label": "anytime-valid (beta-binomial mixture)",
        "n_chosen": "by looking",
        "why": EXTENDED,
    }
    # Shown again later, it stays read by looking: the extension is stored.
    again = scripted(agents, "--resume", "last")
    assert again.stdout == extended.stdout and again.returncode == 4

    # The same ten outcomes planned from the start are read exactly.
    planned = seed(agents, "--attempts", "10", "--require", "0.5", "--confidence", "0.95")
    assert cells(planned.stdout, 7)["arithmetic"] == "0.59-1.00"
    assert cells(planned.stdout, 8)["arithmetic"] == "pass"
    assert "intervals:" not in planned.stderr
    document = tmp_path / "planned.json"
    scripted(agents, "--resume", "last", "--export", str(document))
    assert json.loads(document.read_text())["intervals"]["why"] == FIXED_AND_REACHED


def test_a_new_confidence_that_would_start_runs_on_an_adaptive_evaluation_is_refused(
    agents: Path,
) -> None:
    adaptive = ("--attempts", "3", "--max-attempts", "30", "--require", "0.5")
    first = seed(agents, *adaptive, "--confidence", "0.8")
    assert first.returncode == 1, first.stderr
    calls = (agents / "calls.log").read_text().count("start")

    refused = scripted(agents, "--resume", "last", "--confidence", "0.99")
    assert refused.returncode == 2 and refused.stdout == ""
    [line] = refused.stderr.splitlines()
    # How many more depends on what was in flight when each case was decided: not fixed here.
    assert re.fullmatch(
        r"passk-tui: --resume ev_\w+: --confidence 0\.99 would re-decide this adaptive "
        r"evaluation's cases \(stored: 0\.8\) and start up to \d+ more Runs; to run them give "
        r"--max-attempts 30 with it, else leave --confidence out",
        line,
    ), line
    assert (agents / "calls.log").read_text().count("start") == calls  # no Run started

    lower = scripted(agents, "--resume", "last", "--confidence", "0.5")  # decides no more
    assert lower.returncode == 1, lower.stderr
    assert (agents / "calls.log").read_text().count("start") == calls

    asked = scripted(agents, "--resume", "last", "--confidence", "0.99", "--max-attempts", "30")
    assert asked.returncode == 1, asked.stderr
    assert (agents / "calls.log").read_text().count("start") > calls
