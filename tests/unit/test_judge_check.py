"""The `judge` check: its table, its strict verdict line, its majority and asks again, its panel."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from passk_tui.core.attempt import Verdict, Vote
from passk_tui.core.checks.judge import JudgeCheck, majority, parse_verdict
from passk_tui.core.checks.kinds import compile_check
from passk_tui.core.checks.panel import Judged, JudgeName, Panel, close_panel, open_panel
from passk_tui.core.errors import InputError
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.budget import BudgetedPolicy
from passk_tui.core.run.cases import Case
from passk_tui.core.run.policy import Slot
from passk_tui.core.run.sampling import sampling_policy
from passk_tui.core.transcript import Message, Transcript
from tests.support.records import record, settings_for


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Fine.\nVERDICT: PASS", True),
        ("Wrong.\nVERDICT: FAIL\n\n", False),
        ("  VERDICT: PASS  ", True),
        ("VERDICT: PASS\nbut on reflection no", None),
        ("verdict: pass", None),
        ("VERDICT: PASS.", None),
        ("**VERDICT: PASS**", None),
        ("", None),
        (None, None),
    ],
)
def test_the_verdict_line_is_read_strictly(text: Any, verdict: bool | None) -> None:
    assert parse_verdict(text) is verdict


def _vote(run: int, verdict: bool | None, error: str | None = None) -> Vote:
    return Vote(run, "grader", 1, verdict, "t", error)


def test_majority_of_the_votes_asked() -> None:
    assert majority([_vote(1, True), _vote(2, True), _vote(3, False)], 3) == Verdict(True)
    assert majority([_vote(1, False), _vote(2, True), _vote(3, False)], 3) == Verdict(
        False, "judge: 2/3 votes fail"
    )
    # One valid pass, one fail, one without: no majority of the three asked; errored.
    verdict = majority([_vote(1, True), _vote(2, False), _vote(3, None, "HTTP 500")], 3)
    assert verdict.errored and not verdict.passed
    assert verdict.reason == (
        "judge: no majority of valid votes (1 pass, 1 fail, 1 without a verdict); last: HTTP 500"
    )


WHERE = "cases.toml: line 1: case 'x': check"


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            {"judge": "ok", "agent": "g", "votes": 2},
            "votes must be odd (a majority decides), got 2",
        ),
        ({"judge": "ok", "agent": "g", "votes": 0}, "votes must be at least 1, got 0"),
        ({"judge": "ok", "agent": "g", "votes": True}, "votes must be a whole number, got boolean"),
        ({"judge": "ok", "agent": "g", "prompt": "{input}"}, "prompt must hold {answer}"),
        ({"judge": "ok"}, "agent: a judge needs the agent that grades"),
        ({"judge": " ", "agent": "g"}, "judge: the rubric must not be empty"),
        ({"equals": "x", "votes": 3}, "votes goes only with judge"),
    ],
)
def test_bad_judge_tables_name_the_field(spec: dict[str, Any], said: str) -> None:
    with pytest.raises(InputError) as caught:
        compile_check(spec, WHERE, Path("."))
    assert str(caught.value).startswith(WHERE + ": ")
    assert said in str(caught.value)


def test_the_prompt_holds_input_answer_and_rubric_once_each() -> None:
    check = compile_check(
        {"judge": "R", "agent": "g", "prompt": "in={input} out={answer} r={rubric}"},
        WHERE,
        Path("."),
    )
    assert isinstance(check, JudgeCheck)
    # An answer holding a placeholder stays as the agent wrote it.
    assert check.prompt_for("q", " {rubric} ") == "in=q out={rubric} r=R"


class _Judges:
    """Judges answering from a list, one verdict per Run; the keys asked recorded."""

    def __init__(self, verdicts: list[bool | None]) -> None:
        self.verdicts = verdicts
        self.asked: list[tuple[str, JudgeName]] = []

    async def prepare(self) -> None: ...
    async def aclose(self) -> None: ...

    async def vote(
        self, attempt: Judged, judge: JudgeName, prompt: str, digest: str, run: int
    ) -> Vote:
        self.asked.append((f"{attempt.key}/judge/{run}", judge))
        return _vote(run, self.verdicts.pop(0), None if self.verdicts else "none left")


def _judged(spec: dict[str, Any], verdicts: list[bool | None]) -> tuple[Verdict, _Judges, Panel]:
    check = compile_check(spec, WHERE, Path("."))
    case = Case("x", "question", check)
    judges = _Judges(verdicts)
    panel = Panel(PlannedAttempt(0, case, 1, "ev/c/x/1"), case.input, judges)

    async def judge() -> Verdict:
        token = open_panel(panel)
        try:
            return await check.judge("answer", asyncio.get_running_loop().time() + 5)
        finally:
            close_panel(token)

    return asyncio.run(judge()), judges, panel


def test_a_vote_without_verdict_is_asked_again_at_most_twice() -> None:
    judge = {"judge": "R", "agent": "g", "votes": 3}
    verdict, judges, panel = _judged(judge, [True, None, None, True, None, None, None])
    # Slot 1 at once; slot 2 on its third Run; slot 3 never: 2 passes of 3 is a majority.
    assert verdict == Verdict(True)
    assert [key for key, _ in judges.asked] == [f"ev/c/x/1/judge/{n}" for n in range(1, 8)]
    assert len(panel.votes) == 7


def test_a_judge_inside_any_that_cannot_judge_errors_the_attempt() -> None:
    spec = {"any": [{"equals": "never"}, {"judge": "R", "agent": "g"}]}
    verdict, _, _ = _judged(spec, [None, None, None])
    assert verdict.errored and not verdict.passed
    assert verdict.reason is not None and verdict.reason.startswith("judge: no majority")


def test_a_judge_inside_all_runs_only_after_the_string_checks_pass() -> None:
    spec = {"all": [{"contains": "answer"}, {"judge": "R", "agent": "g", "version": 2}]}
    verdict, judges, _ = _judged(spec, [False])
    assert verdict == Verdict(False, "judge: 1/1 votes fail")
    assert judges.asked == [("ev/c/x/1/judge/1", JudgeName("g", 2))]


def test_budgets_count_the_judge_runs_and_money() -> None:
    settings = settings_for(Path("c.toml"), attempts=10, budget_runs=8)
    policy = sampling_policy(settings, 1)
    assert isinstance(policy, BudgetedPolicy)
    first = policy.next()
    assert isinstance(first, Slot)
    votes = tuple(replace(_vote(n, True), cost=Fraction(1, 100)) for n in (1, 2, 3))
    policy.landed(replace(record(0, first.attempt), votes=votes))
    # 1 Run of the agent and 3 of the judge: 4 of 8 spent, so 4 more attempts at most.
    assert policy.runs_started == 4
    assert policy.cost_spent == Fraction(3, 100)
    started = [policy.next() for _ in range(6)]
    assert sum(isinstance(slot, Slot) for slot in started) == 4


class _Prompts(_Judges):
    """Judges that keep the prompts they were asked."""

    def __init__(self) -> None:
        super().__init__([True])
        self.prompts: list[str] = []

    async def vote(
        self, attempt: Judged, judge: JudgeName, prompt: str, digest: str, run: int
    ) -> Vote:
        self.prompts.append(prompt)
        return await super().vote(attempt, judge, prompt, digest, run)


def test_a_judge_on_the_transcript_is_shown_it_as_json_where_the_answer_goes() -> None:
    check = compile_check(
        {"judge": "R", "agent": "g", "on": "transcript", "prompt": "<{answer}>"}, WHERE, Path(".")
    )
    transcript = Transcript(
        (Message("user", "A table for two.", 1), Message("assistant", "Booked.", 1))
    )
    judges = _Prompts()
    case = Case("x", "q", check)
    panel = Panel(PlannedAttempt(0, case, 1, "k"), case.input, judges)

    async def judge() -> Verdict:
        token = open_panel(panel)
        try:
            return await check.judge("Booked.", asyncio.get_running_loop().time() + 5, transcript)
        finally:
            close_panel(token)

    assert asyncio.run(judge()) == Verdict(True)
    (prompt,) = judges.prompts
    assert json.loads(prompt[1:-1]) == transcript.to_json()


def test_on_goes_with_command_or_judge_only() -> None:
    with pytest.raises(InputError, match="on goes only with command or judge"):
        compile_check({"equals": "x", "on": "transcript"}, WHERE, Path("."))
    with pytest.raises(InputError, match="on must be one of"):
        compile_check({"judge": "R", "agent": "g", "on": "everything"}, WHERE, Path("."))
