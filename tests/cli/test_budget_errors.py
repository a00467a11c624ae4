"""``--budget-errors N``: a broken agent or stack spends nothing past N errored attempts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import passk_tui
from passk_tui import Case
from passk_tui.core.attempt import Outcome
from passk_tui.store import Store
from tests.support.cli import run

BROKEN = '[agents.broken.versions.1]\ncommand = ["python3", "-c", "import sys; sys.exit(3)"]\n'
CASES = "".join(f'[[cases]]\nname = "{n}"\ninput = "x"\ncheck = {{ equals = "x" }}\n' for n in "ab")


def test_the_errors_budget_ends_the_run_and_holds_across_resumes(tmp_path: Path) -> None:
    (tmp_path / "agents.toml").write_text(BROKEN)
    (tmp_path / "cases.toml").write_text(CASES)
    env = os.environ.copy()
    flags = ["--agent", "broken", "--version", "1", "--cases", "cases.toml", "--attempts", "5"]
    done = run(*flags, "--concurrency", "1", "--budget-errors", "3", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "budget spent: 2 cases got fewer attempts than planned" in done.stderr
    with Store.open() as store:
        (summary,) = store.list_evaluations()
        stored = store.load(summary.id)
    assert stored.settings.budget_errors == 3 and stored.status_reason == "budget spent"
    assert [r.outcome for r in stored.records] == [Outcome.ERRORED] * 3
    raised = run("--resume", "last", "--budget-errors", "4", cwd=tmp_path, env=env)
    assert raised.returncode == 2
    assert raised.stderr.endswith(
        "--budget-errors 4 would raise its budget (stored: 3); a budget holds across resumes: "
        "start a new evaluation to spend more\n"
    )
    again = run("--resume", "last", cwd=tmp_path, env=env)  # its 3 errors are counted
    assert again.returncode == 0, again.stderr
    with Store.open() as store:
        assert len(store.load(summary.id).records) == 3


def test_the_errors_budget_as_a_keyword() -> None:
    def broken(text: str) -> str:
        raise RuntimeError("down")

    cases = [Case("c", "x", {"equals": "x"})]
    result = passk_tui.evaluate(broken, cases=cases, attempts=6, concurrency=1, budget_errors=2)
    assert result.cases[0].attempts == 2
    with pytest.raises(passk_tui.InputError, match=r"^budget_errors: must be at least 1, got 0$"):
        passk_tui.evaluate(broken, cases=cases, budget_errors=0)
