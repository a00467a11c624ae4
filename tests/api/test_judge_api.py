"""Judged checks from Python: ``evaluate()`` with a callable judge (votes stored, never asked again
on resume), and ``@pytest.mark.passk(judge=...)`` in a real pytest process."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import passk_tui
from tests.api.test_pytest_plugin import outcomes, plugin_session, reported_attempts

CASES = [
    {"name": "fr", "input": "Capital of France?",
     "check": {"judge": "Names Paris.", "agent": "grader", "votes": 3}},
    {"name": "it", "input": "Capital of Italy?",
     "check": {"all": [{"contains": "L"}, {"judge": "Names Rome.", "agent": "grader"}]}},
    {"name": "de", "input": "Capital of Germany?",
     "check": {"judge": "Names Berlin.", "agent": "flaky", "votes": 3}},
]  # fmt: skip


def agent(question: str) -> str:
    return {"France": "Paris", "Italy": "Lyon"}.get(question.split()[-1].rstrip("?"), "Bonn")


class Grader:
    """A judge that passes an answer naming Paris; its prompts counted."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return "Right.\nVERDICT: PASS" if "answered:\nParis" in prompt else "Wrong.\nVERDICT: FAIL"


def flaky(prompt: str) -> str:
    raise ConnectionError("judge down")


def test_evaluate_with_a_callable_judge_stores_votes_and_resumes_without_asking(
    tmp_path: Path,
) -> None:
    grader = Grader()
    judges = {"grader": grader, "flaky": flaky}
    result = passk_tui.evaluate(
        agent, cases=CASES, attempts=2, judges=judges, export=tmp_path / "e.json"
    )
    by_name = {case.name: case for case in result.cases}
    assert (by_name["fr"].passed, by_name["it"].wrong, by_name["de"].errored) == (2, 2, 2)
    assert len(grader.prompts) == 2 * 3 + 2 * 1
    assert "The agent was given:\nCapital of France?" in grader.prompts[0]
    assert result.judge[0] == (
        "judge: grader v0, 3 votes per answer; unanimous on 100% of answers (Fleiss' kappa -)"
    )
    exported = json.loads((tmp_path / "e.json").read_text())
    de = next(a for a in exported["attempts"] if a["case"] == "de")
    assert de["error"].startswith("judge: no majority of valid votes (0 pass, 0 fail, 3 without")
    assert "ConnectionError: judge down" in de["judge"]["runs"][0]["error"]

    again = passk_tui.evaluate(agent, resume=result.id, judges=judges)
    assert len(grader.prompts) == 8  # every vote read from the store
    assert again.judge == result.judge


def test_a_judge_nobody_names_is_bad_input_before_any_run() -> None:
    asked: list[str] = []

    def answering(question: str) -> str:
        asked.append(question)
        return "x"

    with pytest.raises(passk_tui.InputError, match=r"case 'fr'.*check\.agent: "):
        passk_tui.evaluate(answering, cases=CASES[:1], attempts=1, agents=os.devnull)
    assert asked == []


MARKED = """
import pytest

def grader(prompt):
    return "VERDICT: PASS" if "answered:\\nParis" in prompt else "VERDICT: FAIL"

JUDGE = {"judge": "Names Paris.", "agent": "grader", "votes": 3}

@pytest.mark.passk(attempts=3, k=1, require=1, judge=JUDGE, judges={"grader": grader},
                   input="Capital of France?")
def test_paris():
    return "Paris"

@pytest.mark.passk(attempts=3, k=1, require=1, judge=JUDGE, judges={"grader": grader})
def test_lyon():
    return "Lyon"
"""


def test_the_pytest_plugin_runs_judged_tests(tmp_path: Path) -> None:
    (tmp_path / "test_judged.py").write_text(MARKED)
    done = plugin_session(tmp_path, "--passk-export", "out.json")
    assert outcomes(done.stdout) == {"test_paris": "PASSED", "test_lyon": "FAILED"}, (
        done.stdout + done.stderr
    )
    exported = json.loads((tmp_path / "out.json").read_text())
    said = {a["case"].split("::")[1]: a["judge"]["said"] for a in exported["attempts"]}
    assert said == {"test_paris": "votes 3/3 pass", "test_lyon": "votes 0/3 pass"}
    assert exported["evaluation"]["judge"]["votes"] == 3


ASSERTING = """
import pytest

def grader(prompt):
    return "VERDICT: PASS"

JUDGE = {"judge": "Names Paris.", "agent": "grader"}

@pytest.mark.passk(attempts=2, k=1, judge=JUDGE, judges={"grader": grader})
def test_asserts():
    assert "Lyon" == "Paris", "not Paris"
    return "Lyon"

@pytest.mark.passk(attempts=2, k=1, judge=JUDGE, judges={"grader": grader})
def test_fails_itself():
    pytest.fail("no answer worth judging")

@pytest.mark.passk(attempts=2, k=1, judge=JUDGE, judges={"grader": grader})
def test_errs():
    raise ValueError("provider down")
"""


def test_a_failed_assertion_in_a_judged_test_is_a_wrong_answer_the_judge_is_not_asked(
    tmp_path: Path,
) -> None:
    """The body's own check said no: wrong with its message, no vote; anything else errs."""
    attempts = reported_attempts(tmp_path, "test_asserting.py", ASSERTING)
    seen = {(a["case"].split("::")[1], a["outcome"], a["reason"], a["judge"]) for a in attempts}
    assert seen == {
        ("test_asserts", "wrong", "AssertionError: not Paris", None),
        ("test_fails_itself", "wrong", "Failed: no answer worth judging", None),
        ("test_errs", "errored", None, None),
    }
    errs = [a["error"] for a in attempts if a["case"].endswith("test_errs")]
    assert errs == ["ValueError: provider down"] * 2
