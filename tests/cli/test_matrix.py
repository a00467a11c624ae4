"""A matrix (``--version 1,2,3``) end to end: real processes, the exact stdout, the group in
the store, exports, bad input, and a kill -9 resumed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest
from scipy.stats import fisher_exact
from statsmodels.stats.multitest import multipletests

from passk_tui.store import Store
from passk_tui.store.schema import SCHEMA_VERSION
from tests.support.cli import command, environment, finish, run
from tests.support.old_stores import insert_old_evaluation, store_at_schema
from tests.support.processes import wait_until

AGENTS = Path(__file__).parents[1] / "support" / "matrix_agents"
FLAGS = ("--agents", str(AGENTS / "agents.toml"), "--cases", str(AGENTS / "cases.toml"))

MATRIX = """\
case    v1 passed  v1 pass@3  v2 passed  v2 pass@3  v3 passed  v3 pass@3
------  ---------  ---------  ---------  ---------  ---------  ---------
steady  9/10       1.00       9/10       1.00       9/10       1.00
drops   10/10      1.00       1/10       0.30       0/10       0.00
climbs  2/10       0.53       4/10       0.83       10/10      1.00

case    v2 change  v2 p    v2 verdict  v3 change  v3 p    v3 verdict
------  ---------  ------  ----------  ---------  ------  ----------
steady  0.00       1.00    unclear     0.00       1.00    unclear
drops   -0.90      <0.001  regressed   -1.00      <0.001  regressed
climbs  +0.20      1.00    unclear     +0.80      0.003   improved
v2 vs v1: 0 improved, 1 regressed, 2 unclear
suite v2 vs v1: v2 better on 1 case, worse on 1, same on 1; odds ratio 0.37 (95% CI 0.12-1.07), p 0.04, regressed
v3 vs v1: 1 improved, 1 regressed, 1 unclear
suite v3 vs v1: v3 better on 1 case, worse on 1, same on 1; odds ratio 0.82 (95% CI 0.33-1.98), p 0.57, unclear
"""


def matrix(*args: str, **options: object):  # type: ignore[no-untyped-def]
    return run(*FLAGS, "--agent", "calc", "--attempts", "10", *args, timeout=120, **options)


def test_three_versions_print_the_matrix_and_store_a_group(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    html = tmp_path / "m.html"
    result = matrix("--version", "1,2,3", "--export", str(out), "--export", str(html))
    assert (result.returncode, result.stdout) == (0, MATRIX), result.stderr
    with Store.open() as store:
        summaries = store.list_evaluations()
    assert [s.version for s in summaries] == [3, 2, 1]
    assert {s.group for s in summaries} == {summaries[-1].id}  # named by its first target
    history = run("history", headless=False).stdout
    assert f"calc · group {summaries[-1].id}" in history
    # compare works on any two of the group (v2 against v3 here, which the matrix did not do)
    compared = run("compare", summaries[1].id, summaries[0].id, headless=False)
    assert compared.returncode == 0 and "climbs" in compared.stdout
    document = json.loads(out.read_text())
    assert [t["label"] for t in document["targets"]] == ["v1", "v2", "v3"]
    assert [len(t["attempts"]) for t in document["targets"]] == [30, 30, 30]
    assert "every case of every pair" in document["comparisons"][0]["method"]
    page = html.read_text()
    assert "Matrix: v1, v2, v3" in page and "○ 0.00" in page and "● 1.00" in page
    # The page has no attempt lists, so its footer points at none.
    assert "<details" not in page and "attempt list" not in page


def test_p_values_are_fisher_holm_adjusted_over_every_pair(tmp_path: Path) -> None:
    """The independent reference: scipy's Fisher per case, statsmodels' Holm over all six."""
    out = tmp_path / "m.json"
    assert matrix("--version", "1,2,3", "--export", str(out)).returncode == 0
    cases = [c for pair in json.loads(out.read_text())["comparisons"] for c in pair["cases"]]
    raw = []
    for c in cases:
        a, b = c["a"], c["b"]
        table = [
            [a["passed"], a["attempts"] - a["passed"]],
            [b["passed"], b["attempts"] - b["passed"]],
        ]
        raw.append(fisher_exact(table)[1])
    assert [c["p_raw"] for c in cases] == pytest.approx(raw, rel=1e-9)
    holm = multipletests(raw, method="holm")[1]
    assert [c["p"] for c in cases] == pytest.approx(list(holm), rel=1e-9)
    # Holm over the pair alone would adjust v3's climbs by less: the matrix-wide one is larger.
    assert cases[5]["p"] > multipletests(raw[3:], method="holm")[1][2]


def test_the_gate_reads_every_target_and_regression_the_first() -> None:
    gated = matrix("--version", "1,3", "--require", "0.5")
    assert gated.returncode == 1
    assert "passk-tui: v3 gate: drops: pass@3 0.00" in gated.stderr
    assert "v1 gate" not in gated.stderr  # v1 holds at 0.5
    regressed = matrix("--version", "3,1", "--fail-on-regression")
    assert regressed.returncode == 1
    assert "passk-tui: v1 vs v3: regressed: climbs: A 10/10" in regressed.stderr
    assert matrix("--version", "1,3").returncode == 0


def test_agents_by_versions_cross(tmp_path: Path) -> None:
    result = matrix("--agent", "calc,other", "--version", "1", "--attempts", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "case    calc passed  calc pass@3  other passed  other pass@3\n"
    )
    both = run(*FLAGS, "--agent", "calc,other", "--version", "1", "--attempts", "2", "--k", "1")
    assert both.returncode == 0
    crossed = run(*FLAGS, "--agent", "calc", "--version", "1,2", "--attempts", "2", "--k", "1")
    assert "v1 passed" in crossed.stdout


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ("--agent", "calc", "--version", "1,2,1"),
            "passk-tui: --version: 1 is given twice in the list '1,2,1': each target once\n",
        ),
        (
            ("--agent", "calc,calc", "--version", "1,2"),
            "passk-tui: --agent: calc is given twice in the list 'calc,calc': each target once\n",
        ),
        (
            ("--agent", "calc,nobody", "--version", "1,2"),
            f"passk-tui: {AGENTS / 'agents.toml'}: no agent 'nobody' (agents: calc, other)\n",
        ),
        (
            ("--agent", "calc", "--version", "1,2", "--baseline", "3"),
            "passk-tui: --baseline: not with several versions or agents: a matrix compares every "
            "target with the first\n",
        ),
        (
            ("--agent", "calc", "--version", "1,,2"),
            "passk-tui: --version: an empty item in the list '1,,2'\n",
        ),
    ],
)
def test_bad_lists_are_one_line_exit_2_nothing_stored(args: tuple[str, ...], line: str) -> None:
    result = run(*FLAGS, *args)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", line)
    with Store.open() as store:
        assert store.list_evaluations() == []


def test_kill_9_loses_nothing_and_resume_of_the_group_finishes_every_target(
    tmp_path: Path,
) -> None:
    data = Path(os.environ["PASSK_DATA_DIR"])
    env = environment(data, PASSK_MATRIX_SLEEP="0.2")
    process = subprocess.Popen(
        command(*FLAGS, "--agent", "calc", "--version", "1,2,3", "--attempts", "10",
                "--concurrency", "3"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip

    def landed() -> int:
        try:
            with sqlite3.connect(data / "passk.db") as db:
                return int(db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])
        except sqlite3.Error:
            return 0

    wait_until(process, lambda: landed() >= 12, "a dozen attempts stored")
    process.send_signal(signal.SIGKILL)
    finish(process)
    with Store.open() as store:
        counts = [store.load(s.id).progress().finished for s in store.list_evaluations()]
        first = store.list_evaluations()[-1].id
    assert sum(counts) >= 12 and max(counts) - min(counts) <= 3  # interleaved: comparable
    resumed = run("--resume", first, timeout=120)
    assert (resumed.returncode, resumed.stdout) == (0, MATRIX), resumed.stderr
    again = run("--resume", "last", timeout=60)  # any member resumes the group: all done
    assert (again.returncode, again.stdout) == (0, MATRIX)
    with Store.open() as store:
        assert [store.load(s.id).progress().finished for s in store.list_evaluations()] == [30] * 3


def test_a_store_from_before_groups_opens_and_reads_alone(tmp_path: Path) -> None:
    data = Path(os.environ["PASSK_DATA_DIR"])
    with store_at_schema(data / "passk.db", SCHEMA_VERSION - 1) as db:  # main's, before groups
        insert_old_evaluation(db)
    with Store.open() as store:
        (old,) = store.list_evaluations()
    assert (old.id, old.group) == ("ev_old", None)


def test_resume_given_the_lists_again_must_name_the_same_targets() -> None:
    first = matrix("--version", "1,2", "--attempts", "3")
    assert first.returncode == 0
    same = run(*FLAGS, "--resume", "last", "--agent", "calc", "--version", "1,2")
    assert same.returncode == 0 and same.stdout == first.stdout
    other = run(*FLAGS, "--resume", "last", "--version", "1,3")
    assert (other.returncode, other.stdout) == (2, "")
    assert other.stderr.startswith("passk-tui: --resume ev_") and other.stderr.endswith(
        ": the targets v1, v3 would change what is measured (stored: v1, v2); "
        "start a new evaluation instead\n"
    )
    baseline = run("--resume", "last", "--baseline", "3")
    assert (baseline.returncode, baseline.stdout) == (2, "")
    assert "--baseline: not with several versions or agents" in baseline.stderr


def test_a_budget_is_said_to_hold_for_each_target_apart(tmp_path: Path) -> None:
    """Each target is its own evaluation with its own budget (as a ``--baseline`` pair's
    versions are): three versions at --budget-runs 4 start 12 Runs in all, 4 each, and
    stderr says so before the run, as the pair does."""
    result = matrix("--version", "1,2,3", "--attempts", "3", "--budget-runs", "4")
    assert result.stderr.startswith(
        "passk-tui: warning: the budget holds for each version apart: "
        "--budget-runs 4 lets up to 12 Runs start (4 per version)\n"
    ), result.stderr
    with Store.open() as store:
        counts = [len(store.load(e.id).records) for e in store.list_evaluations()]
    assert counts == [4, 4, 4]
    # Each target's end is said as a single run's is (before, the matrix said nothing of it).
    said = [line for line in result.stderr.splitlines() if "budget spent" in line]
    assert said == [
        f"passk-tui: {label} budget spent: 3 cases got fewer attempts than planned: "
        "steady (2 of 3), drops (1 of 3), climbs (1 of 3)"
        for label in ("v1", "v2", "v3")
    ], result.stderr


def test_the_budget_flags_help_says_a_matrix_holds_its_budget_per_target() -> None:
    """What stderr says before a matrix runs, --help says too: not only --baseline's versions."""
    said = " ".join(run("--help").stdout.split())  # argparse wraps its help at any word
    runs = said.split("--budget-runs N", 1)[1].split(" --budget-cost", 1)[0]
    assert "per version" not in runs and "each target of a matrix" in runs, runs


def test_adaptive_targets_are_named_by_their_labels_in_the_notes() -> None:
    """A matrix has no A and B: the note on tests chosen by looking names the targets, and
    the adjustment the matrix made."""
    result = matrix(
        "--version", "1,2", "--attempts", "3", "--max-attempts", "8", "--require", "0.8"
    )
    assert "v2 vs v1: v1 and v2: n chosen by looking (adaptive or extended)" in result.stdout
    assert "A and B" not in result.stdout
    # Its p's are the matrix's, adjusted over every pair: the note says so, as the .json does.
    assert "Holm-adjusted over every case of every pair\n" in result.stdout
    assert "across the compared cases" not in result.stdout
