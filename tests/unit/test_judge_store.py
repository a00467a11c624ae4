"""The judge's votes in the store: an older store opens, votes come back with their attempt, a
vote is reused only for the prompt it answered."""

from __future__ import annotations

import asyncio
from fractions import Fraction
from pathlib import Path

from passk_tui.core.attempt import Outcome, Turn, Vote
from passk_tui.core.checks.panel import JudgeName
from passk_tui.core.inputs.price import Price
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.evaluations.judging import Judge, StoredJudges
from passk_tui.store import Store
from passk_tui.store.schema import MIGRATIONS
from tests.support.old_stores import insert_old_evaluation, store_at_schema
from tests.support.records import record, settings_for


def test_a_store_from_before_the_judge_opens_and_reads_no_votes(tmp_path: Path) -> None:
    before = next(i for i, step in enumerate(MIGRATIONS) if "judge_votes" in step)
    path = tmp_path / "old.db"
    with store_at_schema(path, before) as db:
        insert_old_evaluation(db)
    with Store.open(path) as store:
        assert store.votes_of("ev_old") == {}
        assert store.load("ev_old").records == []


class _Target:
    """A judge target that says PASS and counts its Runs' keys."""

    def __init__(self) -> None:
        self.definition: dict[str, str] = {}
        self.keys: list[str] = []

    async def prepare(self) -> None: ...
    async def aclose(self) -> None: ...

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: object) -> Turn:
        self.keys.append(attempt.key)
        usage = {"input_tokens": 1000, "output_tokens": 10}
        return Turn("completed", "ok\nVERDICT: PASS", usage=usage)


def test_votes_are_kept_read_back_and_asked_again_only_for_a_new_prompt(tmp_path: Path) -> None:
    case = Case("c", "q", None)
    with Store.open(tmp_path / "passk.db") as store:
        store.create_evaluation("ev", settings_for(tmp_path / "c.toml"), [case], "x")
        attempt = PlannedAttempt(0, case, 1, "ev/c/c/1")
        target = _Target()
        price = Price(Fraction(1), Fraction(2))
        name = JudgeName("grader", None)

        def judges() -> StoredJudges:
            made = {name: Judge("grader", 1, target, price)}
            return StoredJudges(made, store=store, evaluation_id="ev", timeout=5)

        async def ask(made: StoredJudges, digest: str, runs: int) -> list[Vote]:
            return [await made.vote(attempt, name, "p", digest, run) for run in range(1, runs + 1)]

        first = asyncio.run(ask(judges(), "a", 2))
        assert target.keys == ["ev/c/c/1/judge/1", "ev/c/c/1/judge/2"]
        assert first[0].cost == Fraction(1020, 10**6)
        # Another session, the same prompt: read, not asked.
        assert asyncio.run(ask(judges(), "a", 2)) == first
        assert len(target.keys) == 2
        # The attempt's answer changed (its Run ran again): every old vote goes, each is asked.
        asyncio.run(ask(judges(), "b", 1))
        assert len(target.keys) == 3
        assert [v.prompt_sha256 for v in store.votes_of("ev")[(0, 1, 0)]] == ["b"]
        store.write("ev", [record(0, 1, Outcome.PASSED, case="c")])
        (kept,) = store.load("ev").records
        assert [v.run for v in kept.votes] == [1]
