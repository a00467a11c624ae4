"""How long each case's conversations ran: p50 / p95 of turns, tool calls and steps per attempt.

What an attempt cost is not only tokens: an agent that needs nine tool calls where
two do is slower and more fragile. Each attempt is counted from its transcript; an
attempt with none (one input, one answer, no tools) is one turn, no tool call, one step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.stats.costs.case_costs import Spread, known_sum
from passk_tui.core.stats.progress import Progress
from passk_tui.core.transcript import usage_sum


@dataclass(frozen=True, slots=True)
class ConversationSpread:
    """One case's turns, tool calls and steps per counted attempt."""

    name: str
    turns: Spread
    tool_calls: Spread
    steps: Spread
    user_tokens: dict[str, int] | None = None
    """A simulated user's tokens over the case's attempts, apart from the agent's; None: none."""
    user_cost: Fraction | None = None
    """A simulated user's money at its version's prices over the case's attempts; None: none."""

    @property
    def conversational(self) -> bool:
        """True when some attempt held more than one turn or called a tool."""
        return bool((self.turns.p95 or 0) > 1 or (self.tool_calls.p95 or 0) > 0)


def _shape(record: AttemptRecord) -> tuple[int, int, int]:
    """(turns, tool calls, steps) of one attempt."""
    transcript = record.transcript
    if transcript is None:
        return 1, 0, 1
    return transcript.turns, transcript.tool_calls, transcript.steps


def conversation_spreads(
    names: Sequence[str], records: Iterable[AttemptRecord]
) -> list[ConversationSpread]:
    """A row per case (in ``names`` order) over its counted attempts."""
    shapes: dict[str, list[tuple[int, int, int]]] = {name: [] for name in names}
    users: dict[str, list[dict[str, int] | None]] = {name: [] for name in names}
    paid: dict[str, list[Fraction | None]] = {name: [] for name in names}
    for record in records:
        if record.outcome is not Outcome.WITHDRAWN:
            shapes.setdefault(record.case, []).append(_shape(record))
            transcript = record.transcript
            if transcript is not None:
                users.setdefault(record.case, []).append(transcript.user_usage)
                paid.setdefault(record.case, []).append(transcript.user_cost)
    return [
        ConversationSpread(
            name,
            Spread.of([s[0] for s in mine]),
            Spread.of([s[1] for s in mine]),
            Spread.of([s[2] for s in mine]),
            usage_sum(users.get(name, [])),
            known_sum(paid.get(name, [])),
        )
        for name, mine in shapes.items()
    ]


def progress_conversations(progress: Progress) -> list[ConversationSpread]:
    """``conversation_spreads`` over what a live (or stored) evaluation's Progress holds."""
    records = [r for rows in progress.records for r in rows]
    return conversation_spreads(progress.case_names, records)
