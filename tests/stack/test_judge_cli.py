"""Judged checks from the CLI, for real: an agent process, a scripted OpenAI-compatible judge over
HTTP, the store, the export; votes counted at the judge across run, resume and re-export."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from passk_tui.core.text.decimals import fixed
from tests.support.cli import environment, run_async
from tests.support.judge_server import ScriptedJudge, serving_judge

ECHO = Path(__file__).parents[1] / "support" / "agents" / "echo.py"
ROOT = Path(__file__).parents[2]

CASES = """
[[cases]]
name = "good"
input = "a good answer"
check = { judge = "Is good.", agent = "grader", votes = 3 }

[[cases]]
name = "bad"
input = "a bad answer"
check = { judge = "Is good.", agent = "grader", votes = 3 }

[[cases]]
name = "split"
input = "a split answer"
check = { judge = "Is good.", agent = "grader", votes = 3 }

[[cases]]
name = "mute"
input = "a mute answer"
check = { judge = "Is good.", agent = "grader", votes = 3 }

[[cases]]
name = "silent"
input = "a silent answer"
check = { all = [ { contains = "silent" }, { judge = "Is good.", agent = "grader", votes = 3 } ] }

[[cases]]
name = "broken"
input = "a broken answer"
check = { any = [ { equals = "never" }, { judge = "Is good.", agent = "grader", votes = 3 } ] }
"""


judge = pytest.fixture(serving_judge, name="judge")


def _folder(tmp_path: Path, base_url: str) -> Path:
    (tmp_path / "cases.toml").write_text(CASES)
    (tmp_path / "agents.toml").write_text(
        f'[agents.echo.versions.1]\ncommand = ["python3", "{ECHO}"]\n'
        f'[agents.grader.versions.1]\nopenai = {{ base_url = "{base_url}", model = "j" }}\n'
        "price = { input_per_mtok = 1, output_per_mtok = 2 }\n"
    )
    return tmp_path


def _env(tmp_path: Path) -> dict[str, str]:
    return environment(tmp_path / "data", PYTHONPATH=str(ROOT))


async def test_a_judged_suite_runs_and_its_votes_are_never_asked_twice(
    tmp_path: Path, judge: ScriptedJudge
) -> None:
    folder = _folder(tmp_path, judge.base_url)
    env = _env(tmp_path)
    args = ("--agent", "echo", "--version", "1", "--cases", "cases.toml", "--attempts", "2")
    code, out, err = await run_async(
        *args, "--export", "run.json", "--export", "run.html", env=env, cwd=folder
    )
    assert code == 0, err
    html = (folder / "run.html").read_text()
    assert '<h2 id="judge">The judge</h2>' in html and "votes 2/3 pass: Mostly right." in html
    rows = {line.split()[0]: line.split()[1:4] for line in out.splitlines()[2:]}
    assert rows == {
        "good": ["2/2", "0", "0"],
        "bad": ["0/2", "2", "0"],
        "split": ["2/2", "0", "0"],  # 2 of 3 votes pass: the majority decides
        "mute": ["2/2", "0", "0"],  # the vote without a verdict is asked again
        "silent": ["0/2", "0", "2"],  # never a verdict: errored, not wrong
        "broken": ["0/2", "0", "2"],  # the judge's Run fails: errored, not wrong
    }
    # Runs: 3 votes x 2 attempts for good, bad, split; mute's first vote asked again once
    # (its second attempt's prompt is the same: asked once already, so it passes at once);
    # silent and broken: each vote asked 3 times.
    asked = judge.requests
    assert asked == 6 + 6 + 6 + 7 + 18 + 18
    exported = json.loads((folder / "run.json").read_text())

    # The line, from the votes as an independent reader counts them.
    table, unanimous, answers = [], 0, 0
    for attempt in exported["attempts"]:
        verdicts = [r["verdict"] for r in attempt["judge"]["runs"] if r["verdict"] is not None]
        answers += 1
        if len(verdicts) == 3:
            table.append([verdicts.count("pass"), verdicts.count("fail")])
        unanimous += len(verdicts) == 3 and len(set(verdicts)) == 1
    kappa = fleiss_kappa(table)
    line = (
        f"judge: grader v1, 3 votes per answer; unanimous on {unanimous * 100 // answers}% "
        f"of answers (Fleiss' kappa {fixed(kappa)})"
    )
    assert f"passk-tui: {line}\n" in err
    block = exported["evaluation"]["judge"]
    assert block["agent"] == "grader" and block["version"] == 1 and block["votes"] == 3
    assert block["unanimous"] == pytest.approx(unanimous / answers)
    assert block["fleiss_kappa"] == pytest.approx(kappa)
    split = next(a for a in exported["attempts"] if a["case"] == "split")
    assert split["judge"]["said"] == "votes 2/3 pass"
    assert split["judge"]["runs"][0]["key"].endswith("/c/split/1/judge/1")
    broken = next(a for a in exported["attempts"] if a["case"] == "broken")
    assert broken["outcome"] == "errored" and broken["error"].startswith("judge: ")
    # The judge's money apart from the agent's (an unpriced command agent: no cost).
    assert exported["evaluation"]["cost"] is None
    assert exported["evaluation"]["judge_cost"] > 0
    assert sum(c["judge_runs"] for c in exported["cases"]) == asked  # errored Runs too
    evaluation_id = exported["evaluation"]["id"]

    # Resume, and export again: the stored votes are read, the judge is asked nothing.
    code, _, err = await run_async("--resume", evaluation_id, "--export", "again.json",
                                   env=env, cwd=folder)  # fmt: skip
    assert code == 0, err
    assert judge.requests == asked
    again = json.loads((folder / "again.json").read_text())
    assert again["attempts"] == exported["attempts"]
    assert again["evaluation"]["judge"] == block


async def test_a_resumed_evaluation_reuses_the_votes_of_an_attempt_in_flight(
    tmp_path: Path, judge: ScriptedJudge
) -> None:
    """Votes kept before the attempt's record (a kill while judging): the resume asks only
    the votes missing, under the same keys."""
    folder = _folder(tmp_path, judge.base_url)
    env = _env(tmp_path)
    args = ("--agent", "echo", "--version", "1", "--cases", "cases.toml", "--attempts", "1")
    code, _, err = await run_async(*args, "--export", "run.json", env=env, cwd=folder)
    assert code == 0, err
    asked = judge.requests
    evaluation_id = json.loads((folder / "run.json").read_text())["evaluation"]["id"]
    # As a kill between the votes and the record leaves it: the 'good' attempt in flight,
    # its first two votes kept, the third lost with the process.
    db = sqlite3.connect(Path(env["PASSK_DATA_DIR"]) / "passk.db")
    with db:
        db.execute("DELETE FROM attempts WHERE case_name = 'good'")
        db.execute("DELETE FROM judge_votes WHERE case_index = 0 AND run = 3")
        db.execute("INSERT INTO in_flight VALUES (?, 0, 1, 0)", (evaluation_id,))
        db.execute("UPDATE evaluations SET status = 'running'")
    db.close()
    code, _, err = await run_async("--resume", evaluation_id, "--export", "again.json",
                                   env=env, cwd=folder)  # fmt: skip
    assert code == 0, err
    assert judge.requests == asked + 1  # the vote lost, replayed under its key; no other
    good = next(
        a
        for a in json.loads((folder / "again.json").read_text())["attempts"]
        if a["case"] == "good"
    )
    assert [r["run"] for r in good["judge"]["runs"]] == [1, 2, 3]
    assert good["outcome"] == "passed"


@pytest.mark.parametrize(
    ("check", "said"),
    [
        ('{ judge = "ok", agent = "nobody" }', "check.agent: agents.toml: no agent 'nobody'"),
        ('{ judge = "ok", agent = "grader", votes = 2 }', "check: votes must be odd"),
        ('{ judge = "ok", agent = "grader", prompt = "Grade {input}" }', "check: prompt must hold"),
        ('{ judge = "ok", agent = "grader", version = 7 }', "has no version 7"),
    ],
)
async def test_bad_judge_input_is_one_line_and_nothing_starts(
    tmp_path: Path, judge: ScriptedJudge, check: str, said: str
) -> None:
    folder = _folder(tmp_path, judge.base_url)
    (folder / "cases.toml").write_text(f'[[cases]]\nname = "x"\ninput = "hi"\ncheck = {check}\n')
    code, out, err = await run_async(
        "--agent", "echo", "--version", "1", "--cases", "cases.toml",
        env=_env(tmp_path), cwd=folder,
    )  # fmt: skip
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "case 'x'" in err and said in err
    assert judge.requests == 0
    assert not os.path.exists(Path(_env(tmp_path)["PASSK_DATA_DIR"]) / "passk.db") or (
        sqlite3.connect(Path(_env(tmp_path)["PASSK_DATA_DIR"]) / "passk.db")
        .execute("SELECT count(*) FROM evaluations")
        .fetchone()[0]
        == 0
    )
