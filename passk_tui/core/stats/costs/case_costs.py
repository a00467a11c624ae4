"""What each case's attempts cost: wall seconds, tokens and money, totals and p50 / p95.

Tokens come from the Turn's ``usage`` (the stack's, or an ``openai`` version's); an
attempt whose Turn reported none is unknown, never 0: it is left out of the token
figures, and a case none of whose attempts reported usage has no totals (None). Money
counts every attempt whose Turn reported usage, errored ones included (the money was
spent), exactly (``core.inputs.price``); the cost of a success is the case's cost over its
passed attempts, None when none passed. A sum is not a mean: totals are kept per case
and for the evaluation, never averaged across cases.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import floor
from typing import TypeVar

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.price import INPUT_TOKENS, OUTPUT_TOKENS, Price, tokens_of
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.stats.progress import Progress


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) by linear interpolation between order statistics.

    The method numpy calls "linear", its default (Hyndman & Fan's type 7): position
    (n-1)*q/100 in the sorted values, interpolated between its neighbours; one value is
    its own every percentile. None for no values. Checked against ``numpy.percentile``.
    """
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True, slots=True)
class Spread:
    """One quantity over a case's attempts: how many had it, its total, median and 95th percentile."""

    count: int
    p50: float | None
    p95: float | None
    total: float | None = None
    """The sum over the attempts that had it; None when none did (unknown, not 0)."""

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        total = sum(values) if values else None
        return cls(len(values), percentile(values, 50), percentile(values, 95), total)


@dataclass(frozen=True, slots=True)
class CaseCosts:
    """One case's durations (every finished attempt), tokens (those that reported usage), money."""

    name: str
    attempts: int
    duration: Spread
    input_tokens: Spread
    output_tokens: Spread
    passed: int = 0
    cost: Fraction | None = None
    """The case's total: every attempt whose Turn reported usage, priced; None without
    prices or without usage."""

    @property
    def reported(self) -> bool:
        """Whether any attempt's Turn reported usage."""
        return bool(self.input_tokens.count or self.output_tokens.count)

    @property
    def total_tokens(self) -> int | None:
        """Input plus output tokens over the attempts that reported them; None when none did."""
        if not self.reported:
            return None
        return int((self.input_tokens.total or 0) + (self.output_tokens.total or 0))

    @property
    def cost_per_pass(self) -> Fraction | None:
        """The cost of a success: the case's cost over its passed attempts; None when none passed."""
        if self.cost is None or not self.passed:
            return None
        return self.cost / self.passed


def case_costs(
    names: Sequence[str], records: Iterable[AttemptRecord], price: Price | None = None
) -> list[CaseCosts]:
    """A row per case (in ``names`` order) over its counted attempts (withdrawn ones are not)."""
    by_case: dict[str, list[AttemptRecord]] = {name: [] for name in names}
    for record in records:
        if record.outcome is not Outcome.WITHDRAWN:
            by_case.setdefault(record.case, []).append(record)
    rows = []
    for name, mine in by_case.items():
        tokens = {
            key: [t for r in mine if (t := tokens_of(r.usage, key)) is not None]
            for key in (INPUT_TOKENS, OUTPUT_TOKENS)
        }
        rows.append(
            CaseCosts(
                name,
                len(mine),
                Spread.of([r.duration for r in mine]),
                Spread.of(tokens[INPUT_TOKENS]),
                Spread.of(tokens[OUTPUT_TOKENS]),
                sum(1 for r in mine if r.outcome is Outcome.PASSED),
                None if price is None else total_cost(price, mine),
            )
        )
    return rows


def progress_costs(progress: Progress, settings: Settings) -> list[CaseCosts]:
    """``case_costs`` over what a live (or stored) evaluation's Progress holds."""
    records = [r for rows in progress.records for r in rows]
    return case_costs(progress.case_names, records, settings.price)


def total_cost(price: Price, records: Iterable[AttemptRecord]) -> Fraction | None:
    """What ``records`` cost at ``price``: every one whose Turn reported usage; None if none did."""
    costs = [c for r in records if (c := price.cost(r.usage)) is not None]
    return sum(costs, Fraction(0)) if costs else None


def evaluation_cost(rows: Sequence[CaseCosts]) -> Fraction | None:
    """The evaluation's total (a sum over cases, not a mean); None when no case has a cost."""
    costs = [row.cost for row in rows if row.cost is not None]
    return sum(costs, Fraction(0)) if costs else None


_Amount = TypeVar("_Amount", int, Fraction)


def plus_known(a: _Amount | None, b: _Amount | None) -> _Amount | None:
    """A sum where None is unknown: unknown only when both are."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def known_sum(costs: Iterable[Fraction | None]) -> Fraction | None:
    """The sum of the known costs; None when none is known (unknown, never 0)."""
    total: Fraction | None = None
    for cost in costs:
        total = plus_known(total, cost)
    return total
