"""What the judge cost, apart from the agent: its Runs, tokens and money per case and in total.

The judge's usage is its own Runs' (each vote's, asks again included, errored ones too:
the money was spent), priced at the judge version's prices when it has them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.price import INPUT_TOKENS, OUTPUT_TOKENS, tokens_of
from passk_tui.core.stats.costs.case_costs import plus_known


@dataclass(frozen=True, slots=True)
class JudgeCosts:
    """The judge's Runs over some attempts: how many, their tokens in and out, their cost."""

    runs: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: Fraction | None = None
    """None when no vote was priced (no prices, or no usage reported)."""

    def __add__(self, other: JudgeCosts) -> JudgeCosts:
        return JudgeCosts(
            self.runs + other.runs,
            plus_known(self.input_tokens, other.input_tokens),
            plus_known(self.output_tokens, other.output_tokens),
            plus_known(self.cost, other.cost),
        )


def judge_costs(records: Iterable[AttemptRecord]) -> JudgeCosts:
    """The judge's Runs on the counted ``records`` (a withdrawn attempt's votes are not kept)."""
    total = JudgeCosts()
    for record in records:
        if record.outcome is Outcome.WITHDRAWN:
            continue
        for vote in record.votes:
            total += JudgeCosts(
                1,
                tokens_of(vote.usage, INPUT_TOKENS),
                tokens_of(vote.usage, OUTPUT_TOKENS),
                vote.cost,
            )
    return total
