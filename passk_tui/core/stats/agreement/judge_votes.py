"""A judge's agreement with itself: per answer its votes, per case and per judge how often unanimous.

An answer's votes are read back from its judge Runs in order: a vote is the Runs of one
slot, asked again (``core.checks.judge.ASKED_AGAIN``) until it gave a verdict, so the
slots of an answer are found again from the Runs alone. An answer is unanimous when
every slot gave the same verdict; Fleiss' kappa is taken over the answers whose every
slot gave one (a kappa needs the same number of ratings for each).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from passk_tui.core.attempt import AttemptRecord, Outcome, Vote
from passk_tui.core.checks.judge import ASKED_AGAIN
from passk_tui.core.stats.agreement.kappa import fleiss_kappa
from passk_tui.core.text.amounts import counted
from passk_tui.core.text.decimals import fixed


@dataclass(frozen=True, slots=True)
class AnswerVotes:
    """One judge's votes on one answer: how many it gave (slots), how many passed, failed."""

    agent: str
    version: int
    asked: int
    passes: int
    fails: int

    @property
    def complete(self) -> bool:
        """Whether every vote gave a verdict."""
        return self.passes + self.fails == self.asked

    @property
    def unanimous(self) -> bool:
        return self.passes == self.asked or self.fails == self.asked

    def text(self) -> str:
        """``votes 2/3 pass``, as the Case screen and the ``.json`` say it."""
        return f"votes {self.passes}/{self.asked} pass"


def answer_votes(votes: Sequence[Vote]) -> list[AnswerVotes]:
    """The votes of one answer by judge (agent and version), in the order first asked."""
    slots: dict[tuple[str, int], list[bool | None]] = {}
    misses: dict[tuple[str, int], int] = {}
    for vote in votes:
        judge = (vote.agent, vote.version)
        mine = slots.setdefault(judge, [])
        if vote.verdict is not None:
            mine.append(vote.verdict)
            misses[judge] = 0
            continue
        misses[judge] = misses.get(judge, 0) + 1
        if misses[judge] == 1 + ASKED_AGAIN:  # asked as often as it may be: a vote without one
            mine.append(None)
            misses[judge] = 0
    return [
        AnswerVotes(
            agent,
            version,
            len(verdicts),
            sum(1 for v in verdicts if v is True),
            sum(1 for v in verdicts if v is False),
        )
        for (agent, version), verdicts in slots.items()
    ]


@dataclass(frozen=True, slots=True)
class JudgeAgreement:
    """One judge over an evaluation: its votes per answer, how often unanimous, Fleiss' kappa."""

    agent: str
    version: int
    votes: int
    """Votes per answer (a check's ``votes``)."""
    answers: int
    unanimous: int
    fleiss_kappa: float | None
    """Over the answers whose every vote gave a verdict; None with one vote, or undefined."""

    @property
    def unanimous_share(self) -> float | None:
        return self.unanimous / self.answers if self.answers else None

    def line(self) -> str:
        """The evaluation's line, as stderr and the Results screen say it."""
        head = f"judge: {self.agent} v{self.version}, {counted(self.votes, 'vote')} per answer"
        if self.votes < 2 or self.unanimous_share is None:
            return head
        # Down, never up: 995 of 1000 is not "unanimous on 100%".
        percent = self.unanimous * 100 // self.answers
        kappa = "-" if self.fleiss_kappa is None else fixed(self.fleiss_kappa)
        return f"{head}; unanimous on {percent}% of answers (Fleiss' kappa {kappa})"


def judged(records: Iterable[AttemptRecord]) -> list[tuple[AttemptRecord, list[AnswerVotes]]]:
    """The counted records a judge voted on, each with its votes by judge."""
    return [
        (r, answer_votes(r.votes))
        for r in records
        if r.votes and r.outcome is not Outcome.WITHDRAWN
    ]


def judge_agreements(records: Iterable[AttemptRecord]) -> list[JudgeAgreement]:
    """Each judge's agreement over the records, in the order the judges first voted: a judge
    asked for a different number of votes by different cases is one line per number."""
    by_judge: dict[tuple[str, int, int], list[AnswerVotes]] = {}
    for _, answers in judged(records):
        for answer in answers:
            by_judge.setdefault((answer.agent, answer.version, answer.asked), []).append(answer)
    found = []
    for (agent, version, votes), answers in by_judge.items():
        table = [[a.passes, a.fails] for a in answers if a.complete]
        found.append(
            JudgeAgreement(
                agent,
                version,
                votes,
                len(answers),
                sum(1 for a in answers if a.unanimous),
                fleiss_kappa(table) if votes >= 2 else None,
            )
        )
    return found


def unanimous_share(records: Iterable[AttemptRecord]) -> float | None:
    """A case's share of answers judged unanimously (every judge); None when none was judged."""
    answers = [all(a.unanimous for a in votes) for _, votes in judged(records)]
    return sum(answers) / len(answers) if answers else None
