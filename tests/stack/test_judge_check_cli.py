"""`passk-tui judge-check`: the judge against a person's labels, for real over HTTP; its figures
checked against scipy's exact interval and statsmodels' Cohen's kappa."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import binomtest
from statsmodels.stats.inter_rater import cohens_kappa

from passk_tui.core.text.decimals import fixed
from tests.support.cli import environment, run_async
from tests.support.judge_server import ScriptedJudge, serving_judge

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "judge" / "labels.jsonl"

#: (answer, label): the scripted judge passes 'good' and 'split' (2 of 3), fails 'bad', never
#: decides 'silent'.
LABELLED = [
    *[("a good one", "pass")] * 9,
    *[("a good one", "fail")] * 2,
    *[("a bad one", "fail")] * 7,
    *[("a bad one", "pass")] * 1,
    *[("a split one", "pass")] * 2,
    ("a silent one", "fail"),
]


judge = pytest.fixture(serving_judge, name="judge")


def _folder(tmp_path: Path, base_url: str) -> Path:
    rows = [{"input": "q", "answer": a, "rubric": "is good", "label": lab} for a, lab in LABELLED]
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "agents.toml").write_text(
        f'[agents.grader.versions.1]\nopenai = {{ base_url = "{base_url}", model = "j" }}\n'
        f'[agents.grader.versions.2]\nopenai = {{ base_url = "{base_url}", model = "j2" }}\n'
    )
    return tmp_path


async def test_judge_check_prints_accuracy_interval_kappa_and_confusion(
    tmp_path: Path, judge: ScriptedJudge
) -> None:
    folder = _folder(tmp_path, judge.base_url)
    env = environment(tmp_path / "data", PYTHONPATH=str(ROOT))
    code, out, err = await run_async(
        "judge-check",
        "labels.jsonl",
        "--agent",
        "grader",
        "--votes",
        "3",
        "--concurrency",
        "1",  # the scripted split is by turn: in order, each split answer is 2 of 3
        env=env,
        cwd=folder,
        headless=False,
    )
    assert code == 0, err
    right, total = 9 + 7 + 2, len(LABELLED)
    ci = binomtest(right, total).proportion_ci(confidence_level=0.95, method="exact")
    low = f"{math.floor(ci.low * 100) / 100:.2f}"
    high = f"{math.ceil(ci.high * 100) / 100:.2f}"
    kappa = cohens_kappa([[9 + 2, 1], [2, 7]], return_results=False)
    lines = out.splitlines()
    assert lines[0].startswith("judge: grader v2, 3 votes per answer; unanimous on ")  # newest
    assert lines[1] == (
        f"accuracy {right}/{total} = {fixed(right / total)}, 95% exact interval {low}-{high}"
    )
    assert lines[2] == f"Cohen's kappa {fixed(kappa)}"
    assert lines[3:] == [
        "            judged pass  judged fail  no verdict",
        "label pass  11           1            0",
        "label fail  2            7            1",
    ]
    assert [m.json["model"] for m in judge.seen][:1] == ["j2"]

    # The gate on the accuracy's lower bound.
    same = ("--version", "1", "--votes", "3", "--concurrency", "1")
    code, _, err = await run_async(
        "judge-check", "labels.jsonl", "--agent", "grader", *same,
        "--require", f"{ci.low + 0.01:.2f}", env=env, cwd=folder, headless=False,
    )  # fmt: skip
    assert code == 1
    assert (
        err
        == f"passk-tui: judge-check: the accuracy's lower bound {low} is under --require {ci.low + 0.01:.2f}\n"
    )
    code, out, err = await run_async(
        "judge-check", "labels.jsonl", "--agent", "grader", *same,
        "--require", f"{ci.low - 0.01:.2f}", env=env, cwd=folder, headless=False,
    )  # fmt: skip
    assert code == 0, out + err


@pytest.mark.parametrize(
    ("line", "flags", "said"),
    [
        ('{"input": "q", "answer": "a", "rubric": "r", "label": "yes"}', (),
         'labels.jsonl: line 1: label must be "pass" or "fail"'),
        ('{"input": "q", "answer": "a", "label": "pass"}', (),
         "labels.jsonl: line 1: missing field 'rubric'"),
        ('{"input": "q", "answer": "a", "rubric": "r", "label": "pass"}', ("--votes", "2"),
         "--votes: must be odd"),
        ('{"input": "q", "answer": "a", "rubric": "r", "label": "pass"}', ("--agent", "nobody"),
         "--agent nobody: agents.toml: no agent 'nobody'"),
    ],
)  # fmt: skip
async def test_bad_judge_check_input_is_one_line_exit_2(
    tmp_path: Path, judge: ScriptedJudge, line: str, flags: tuple[str, ...], said: str
) -> None:
    folder = _folder(tmp_path, judge.base_url)
    (folder / "labels.jsonl").write_text(line + "\n")
    env = environment(tmp_path / "data", PYTHONPATH=str(ROOT))
    code, out, err = await run_async(
        "judge-check",
        "labels.jsonl",
        "--agent",
        "grader",
        *flags,
        env=env,
        cwd=folder,
        headless=False,
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and said in err, err
    assert judge.requests == 0


def test_the_shipped_labels_are_well_formed() -> None:
    from passk_tui.core.run.cases import load_cases
    from passk_tui.core.run.labels import load_labels
    from passk_tui.evaluations.judging import judge_checks

    labelled = load_labels(EXAMPLE)
    assert len(labelled) == 20
    assert {item.passed for item in labelled} == {True, False}
    cases = load_cases(EXAMPLE.parent / "cases.toml")
    assert len(judge_checks(cases)) == len(cases) == 4
