"""What the attempts a plan recommends would cost: its n times the cost of one attempt.

One attempt's cost is its tokens in and out at the version's prices: tokens given as
expected per attempt (``plan --tokens-in/--tokens-out``), or, for ``plan --from``, each
case's observed mean per attempt over its attempts whose Turn reported usage. The n is
the plan's own (``core.stats.plan.gate_chance``); the cost is exact, an estimate only as far as
the tokens per attempt are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.price import INPUT_TOKENS, OUTPUT_TOKENS, Price, tokens_of
from passk_tui.core.stats.gating.gate import CaseReading


@dataclass(frozen=True, slots=True)
class AttemptTokens:
    """Tokens in and out of one attempt, as expected (a mean may be a fraction)."""

    input: Fraction
    output: Fraction


def observed_tokens(records: Iterable[AttemptRecord]) -> AttemptTokens | None:
    """The mean tokens in and out per attempt over those that reported usage; None if none did."""
    reported = [
        (tokens_of(r.usage, INPUT_TOKENS), tokens_of(r.usage, OUTPUT_TOKENS)) for r in records
    ]
    reported = [pair for pair in reported if pair != (None, None)]
    if not reported:
        return None
    count = len(reported)
    return AttemptTokens(
        Fraction(sum(t or 0 for t, _ in reported), count),
        Fraction(sum(t or 0 for _, t in reported), count),
    )


def attempts_cost(
    n: int | float | None, tokens: AttemptTokens | None, price: Price
) -> Fraction | None:
    """What ``n`` attempts of ``tokens`` each cost; None when n or the tokens are unknown."""
    if n is None or tokens is None:
        return None
    return Fraction(n) * price.of_tokens(tokens.input, tokens.output)


def undecided_costs(
    undecided: Sequence[CaseReading],
    more: Sequence[Mapping[float, int | None]],
    records: Iterable[AttemptRecord],
    price: Price,
    tokens: AttemptTokens | None = None,
) -> list[dict[float, Fraction | None]]:
    """``plan --from``: per undecided case, what its more attempts for each target would cost,
    at ``tokens`` per attempt if given, else at the case's own observed tokens per attempt."""
    names = {case.figures.name for case in undecided}
    by_case: dict[str, list[AttemptRecord]] = {name: [] for name in names}
    for record in records:
        if record.case in names:
            by_case[record.case].append(record)
    return [
        {
            target: attempts_cost(n, tokens or observed_tokens(by_case[case.figures.name]), price)
            for target, n in found.items()
        }
        for case, found in zip(undecided, more, strict=True)
    ]
