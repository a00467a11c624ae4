"""The judge's agreement figures against statsmodels and scipy, and the votes read per answer."""

from __future__ import annotations

import math
import random

import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from passk_tui.core.attempt import AttemptRecord, Outcome, Vote
from passk_tui.core.stats.agreement.judge_votes import (
    answer_votes,
    judge_agreements,
    unanimous_share,
)
from passk_tui.core.stats.agreement.kappa import cohens_kappa, fleiss_kappa
from passk_tui.core.text.decimals import fixed


def _table(rng: random.Random, subjects: int, raters: int) -> list[list[int]]:
    rows = []
    for _ in range(subjects):
        p = rng.random()
        passes = sum(1 for _ in range(raters) if rng.random() < p)
        rows.append([passes, raters - passes])
    return rows


@pytest.mark.parametrize("seed", range(40))
def test_fleiss_kappa_matches_statsmodels(seed: int) -> None:
    rng = random.Random(seed)
    table = _table(rng, rng.randint(1, 60), rng.choice([2, 3, 5, 7]))
    ours = fleiss_kappa(table)
    theirs = sm_fleiss_kappa(table, method="fleiss")
    if ours is None:
        assert math.isnan(theirs)
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_fleiss_kappa_of_one_category_is_undefined() -> None:
    assert fleiss_kappa([[3, 0], [3, 0]]) is None
    assert fleiss_kappa([]) is None
    with pytest.raises(ValueError):
        fleiss_kappa([[3, 0], [1, 1]])


@pytest.mark.parametrize("seed", range(40))
def test_cohens_kappa_matches_statsmodels(seed: int) -> None:
    rng = random.Random(seed)
    table = [[rng.randint(0, 30) for _ in range(2)] for _ in range(2)]
    ours = cohens_kappa(table)
    if sum(map(sum, table)) == 0:
        assert ours is None
        return
    theirs = sm_cohens_kappa(table, return_results=False)
    if ours is None:
        assert math.isnan(theirs) or theirs == pytest.approx(0.0)
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


def _vote(run: int, verdict: bool | None, agent: str = "grader") -> Vote:
    return Vote(run, agent, 1, verdict, "text")


def _record(
    attempt: int, *verdicts: bool | None, outcome: Outcome = Outcome.PASSED
) -> AttemptRecord:
    votes = tuple(_vote(i + 1, v) for i, v in enumerate(verdicts))
    return AttemptRecord(0, "c", attempt, f"k/{attempt}", outcome, "completed", "a", None, None,
                         None, None, 0.0, 1.0, votes=votes)  # fmt: skip


def test_votes_of_an_answer_count_slots_not_runs() -> None:
    # The second slot was asked twice (no verdict first); the third never gave one in three.
    (votes,) = answer_votes([_vote(1, True), _vote(2, None), _vote(3, False),
                             _vote(4, None), _vote(5, None), _vote(6, None)])  # fmt: skip
    assert (votes.asked, votes.passes, votes.fails) == (3, 1, 1)
    assert votes.text() == "votes 1/3 pass"
    assert not votes.complete and not votes.unanimous


def test_agreement_line_and_kappa_of_an_evaluation() -> None:
    records = [_record(1, True, True, True), _record(2, True, True, False),
               _record(3, False, False, False), _record(4, True, True, True),
               _record(5, True, None, None, None, True, outcome=Outcome.PASSED)]  # fmt: skip
    (agreement,) = judge_agreements(records)
    assert (agreement.answers, agreement.unanimous) == (5, 3)
    complete = [[3, 0], [2, 1], [0, 3], [3, 0]]
    assert agreement.fleiss_kappa == pytest.approx(sm_fleiss_kappa(complete))
    kappa = f"{fixed(sm_fleiss_kappa(complete))}"
    assert agreement.line() == (
        f"judge: grader v1, 3 votes per answer; unanimous on 60% of answers (Fleiss' kappa {kappa})"
    )
    assert unanimous_share(records) == pytest.approx(3 / 5)


def test_one_vote_per_answer_says_no_agreement() -> None:
    (agreement,) = judge_agreements([_record(1, True), _record(2, False)])
    assert agreement.line() == "judge: grader v1, 1 vote per answer"
    assert agreement.fleiss_kappa is None
