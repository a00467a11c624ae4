"""A matrix of stack agents (`--version 1,2,3`, `--agent a,b` with `--stack`) over real HTTP:
every case on every target, each Run once under its own key, the matrix on stdout."""

from __future__ import annotations

from pathlib import Path

from passk_tui.store import DB_NAME, Store
from tests.support.cli import finish, start
from tests.support.resume import CASES, KEY
from tests.support.stack_server import Agent, StackScript, TurnScript

ATTEMPTS = 4


def _cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.toml"
    path.write_text(CASES)  # alpha, beta and gamma, each checked for its own name
    return path


def _rows(out: str) -> list[list[str]]:
    """The matrix's first table: case, then each target's passed and pass@k."""
    table = out.split("\n\n", 1)[0].splitlines()
    return [line.split() for line in table[2:]]


def test_three_versions_of_a_stack_agent_in_one_matrix(make_stack, tmp_path: Path) -> None:
    beta_wrong = StackScript(turns={"beta": TurnScript(output="not beta")})
    stack = make_stack(keys={KEY: None}, scripts_by_version={2: beta_wrong})
    args = ["--stack", stack.url, "--agent", "demo", "--version", "1,2,3"]
    args += ["--cases", str(_cases(tmp_path)), "--attempts", str(ATTEMPTS), "--concurrency", "4"]
    status, out, err = finish(start(*args, data=tmp_path / "data", key=KEY), timeout=120)
    assert status == 0, err
    assert out.splitlines()[0].split() == [
        "case", "v1", "passed", "v1", "pass@3", "v2", "passed", "v2", "pass@3",
        "v3", "passed", "v3", "pass@3",
    ]  # fmt: skip
    assert _rows(out) == [
        ["alpha", "4/4", "1.00", "4/4", "1.00", "4/4", "1.00"],
        ["beta", "4/4", "1.00", "0/4", "0.00", "4/4", "1.00"],
        ["gamma", "4/4", "1.00", "4/4", "1.00", "4/4", "1.00"],
    ]
    assert "v2 vs v1: 0 improved" in out and "v3 vs v1: 0 improved, 0 regressed" in out
    # Every attempt of every target one Run, none started twice; the key never shown.
    stats = stack.stats()
    assert len(stats.runs_by_key) == 3 * 3 * ATTEMPTS and stats.max_runs_per_key == 1
    assert KEY not in out + err
    with Store.open(tmp_path / "data" / DB_NAME) as store:
        stored = store.list_evaluations()
    assert sorted(e.version for e in stored) == [1, 2, 3]


def test_two_stack_agents_in_one_matrix(make_stack, tmp_path: Path) -> None:
    agents = (
        Agent("agt_01J9ZQ4X7RM0BWJ8S5C0V2K3YD", "demo"),
        Agent("agt_01J9ZQ4X7RM0BWJ8S5C0V2K3YE", "other"),
    )
    stack = make_stack(keys={KEY: None}, agents=agents)
    args = ["--stack", stack.url, "--agent", "demo,other", "--version", "1"]
    args += ["--cases", str(_cases(tmp_path)), "--attempts", str(ATTEMPTS)]
    status, out, err = finish(start(*args, data=tmp_path / "data", key=KEY), timeout=120)
    assert status == 0, err
    assert out.splitlines()[0].split()[:5] == ["case", "demo", "passed", "demo", "pass@3"]
    assert [row[:5] for row in _rows(out)] == [
        ["alpha", "4/4", "1.00", "4/4", "1.00"],
        ["beta", "4/4", "1.00", "4/4", "1.00"],
        ["gamma", "4/4", "1.00", "4/4", "1.00"],
    ]
    stats = stack.stats()
    assert len(stats.runs_by_key) == 2 * 3 * ATTEMPTS and stats.max_runs_per_key == 1
