"""The judge's votes on one attempt in words, for the Case screen and the HTML report."""

from __future__ import annotations

from collections.abc import Sequence

from passk_tui.core.attempt import AttemptRecord, Vote
from passk_tui.core.inputs.price import money_text
from passk_tui.core.stats.agreement.judge_votes import JudgeAgreement, answer_votes, judged
from passk_tui.core.stats.costs.judge_costs import JudgeCosts
from passk_tui.core.text.amounts import counted


def votes_said(record: AttemptRecord) -> str | None:
    """``votes 2/3 pass`` (each judge's, for a check with several); None when none judged it."""
    if not record.votes:
        return None
    return "; ".join(answer.text() for answer in answer_votes(record.votes))


def vote_heading(vote: Vote) -> str:
    """One Run's heading: ``vote 2 · grader v1 · PASS`` (or why it gave no verdict)."""
    if vote.verdict is None:
        said = f"no verdict: {vote.error}" if vote.error else "no verdict"
    else:
        said = "PASS" if vote.verdict else "FAIL"
    return f"Run {vote.run} · {vote.agent} v{vote.version} · {said}"


def judge_lines(agreements: Sequence[JudgeAgreement], costs: JudgeCosts) -> list[str]:
    """A line per judge (votes per answer, unanimity, Fleiss' kappa), then what it cost when
    priced: what stderr and the Results screen say of the judge."""
    lines = [agreement.line() for agreement in agreements]
    if lines and costs.cost is not None:
        lines.append(
            f"judge cost {money_text(costs.cost)} in all ({counted(costs.runs, 'judge Run')})"
        )
    return lines


def case_judge_text(records: Sequence[AttemptRecord]) -> str | None:
    """A case's judged answers in words: ``judge: unanimous on 4 of 5 answers``; None when
    no answer of the case was judged."""
    answers = [all(a.unanimous for a in votes) for _, votes in judged(records)]
    if not answers:
        return None
    return f"judge: unanimous on {sum(answers)} of {counted(len(answers), 'answer')}"
