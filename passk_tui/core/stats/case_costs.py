"""What each case's attempts cost: wall seconds and tokens, as a median and a 95th percentile."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import floor
from typing import Any

from passk_tui.core.run.attempt import AttemptRecord

#: The token counts a Turn's ``usage`` may carry (runs-api.md, and the openai target's).
TOKEN_KEYS = ("input_tokens", "output_tokens")


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) by linear interpolation between order statistics.

    The method numpy calls "linear" (Hyndman & Fan's type 7): position
    (n-1)*q/100 in the sorted values. None for no values.
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
    """The median and the 95th percentile of one quantity over a case's attempts."""

    count: int
    p50: float | None
    p95: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        return cls(len(values), percentile(values, 50), percentile(values, 95))


@dataclass(frozen=True, slots=True)
class CaseCosts:
    """One case's durations (every finished attempt) and tokens (the attempts that reported usage)."""

    name: str
    attempts: int
    duration: Spread
    input_tokens: Spread
    output_tokens: Spread
    total_tokens: int
    """Input plus output tokens summed over the attempts that reported them."""


def tokens_of(usage: dict[str, Any] | None, key: str) -> int | None:
    """A token count from a Turn's usage, or None when absent or not a whole number."""
    if not usage:
        return None
    value = usage.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def case_costs(names: Sequence[str], records: Iterable[AttemptRecord]) -> list[CaseCosts]:
    """A row per case (in ``names`` order) over its finished attempts."""
    by_case: dict[str, list[AttemptRecord]] = {name: [] for name in names}
    for record in records:
        by_case.setdefault(record.case, []).append(record)
    rows = []
    for name, mine in by_case.items():
        tokens = {
            key: [t for r in mine if (t := tokens_of(r.usage, key)) is not None]
            for key in TOKEN_KEYS
        }
        rows.append(
            CaseCosts(
                name,
                len(mine),
                Spread.of([r.duration for r in mine]),
                Spread.of(tokens["input_tokens"]),
                Spread.of(tokens["output_tokens"]),
                sum(map(sum, tokens.values())),
            )
        )
    return rows
