"""``evaluate()`` with a list of agents, or of versions: a matrix, readable per target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passk_tui
from passk_tui.store import Store

AGENTS = Path(__file__).parents[1] / "support" / "matrix_agents"
CASE = [passk_tui.Case("c", "x", {"equals": "ok"})]


def test_a_list_of_versions_reads_per_target_as_the_cli_prints_it(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    result = passk_tui.evaluate(
        "calc", version=[1, 2, 3], cases=AGENTS / "cases.toml", agents=AGENTS / "agents.toml",
        attempts=10, require=0.5, export=out,
    )  # fmt: skip
    assert result.labels == ["v1", "v2", "v3"]
    assert [(t.version, t.gate) for t in result.targets] == [(1, "pass"), (2, "fail"), (3, "fail")]
    assert result.exit_status == 1  # v2 and v3 fail the gate: every target counts
    drops = result.targets[1].cases[1]
    assert (drops.name, drops.passed, drops.attempts) == ("drops", 1, 10)
    assert result.table().startswith("case    v1 passed  v1 pass@3  v2 passed")
    assert "suite v3 vs v1: v3 better on 1 case" in result.table()
    assert len(json.loads(out.read_text())["targets"]) == 3
    with Store.open() as store:
        assert len({s.group for s in store.list_evaluations()}) == 1


def test_a_list_of_callables_is_stored_under_each_name() -> None:
    def good(text: str) -> str:
        return "ok"

    def bad(text: str) -> str:
        return "no"

    result = passk_tui.evaluate([good, bad], cases=CASE, attempts=3)
    assert result.labels == ["good", "bad"]
    assert [t.cases[0].passed for t in result.targets] == [3, 0]
    assert result.exit_status == 0  # no gate; no --fail-on-regression in the API


@pytest.mark.parametrize(
    ("agents", "line"),
    [
        (
            ["calc", "calc"],
            "agent: calc is given twice in the list 'calc,calc': each target once",
        ),
        (["calc", "nobody"], "no agent 'nobody' (agents: calc, other)"),
        (["calc", len], "agent: a list holds local agents' names, Stacks or callables"),
        ([], "agent: an empty list of agents"),
    ],
)
def test_bad_lists_raise_the_cli_line(agents: list[object], line: str) -> None:
    with pytest.raises(passk_tui.InputError, match=line.replace("(", r"\(").replace(")", r"\)")):
        passk_tui.evaluate(
            agents,
            cases=AGENTS / "cases.toml",
            agents=AGENTS / "agents.toml",
            version=1,  # type: ignore[arg-type]
        )
    with Store.open() as store:
        assert store.list_evaluations() == []
