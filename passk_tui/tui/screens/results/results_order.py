"""The Results table's orders: any column, worst first on the first press, reversed on the next."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from passk_tui.core.reading.vocabulary import CaseFigures


@dataclass(frozen=True, slots=True)
class SortColumn:
    """A column the table sorts by: its key letter, its label, and its first (worst-first) order."""

    key: str
    label: str
    value: Callable[[CaseFigures], Any]
    #: True when the first press puts the highest values first (errored, most first).
    highest_first: bool


#: The sortable columns in the table's order (pass^k last: the least read); ``{k}`` is the real k.
COLUMNS: tuple[SortColumn, ...] = (
    SortColumn("n", "case", lambda f: f.name, False),
    SortColumn("a", "passed", lambda f: (f.pass_at_1 or 0, f.n), False),
    SortColumn("w", "wrong", lambda f: f.wrong, True),
    SortColumn("e", "errored", lambda f: f.errored, True),
    SortColumn("1", "pass@1", lambda f: f.pass_at_1, False),
    SortColumn("p", "pass@{k}", lambda f: f.pass_at_k, False),
    SortColumn("y", "all passed", lambda f: f.all_passed, False),
    SortColumn("h", "pass^{k}", lambda f: f.pass_hat_k, False),
)
COLUMN_BY_KEY = {column.key: column for column in COLUMNS}


@dataclass(frozen=True, slots=True)
class Order:
    """File order (``column`` None), or a column and whether it is reversed from its first order."""

    column: str | None = None
    reversed: bool = False

    def pressed(self, column: str | None) -> Order:
        """The order after asking for ``column``: its first order, or reversed when already on it."""
        if column is None or column != self.column:
            return Order(column)
        return Order(column, not self.reversed)

    def descending(self) -> bool:
        assert self.column is not None
        return COLUMN_BY_KEY[self.column].highest_first != self.reversed

    def describe(self, k: int) -> str:
        if self.column is None:
            return "file order"
        column = COLUMN_BY_KEY[self.column]
        way = "highest first" if self.descending() else "lowest first"
        if self.column == "n":
            way = "Z to A" if self.descending() else "A to Z"
        return f"{column.label.format(k=k)}, {way}"

    def arrow(self, key: str) -> str:
        """The mark beside the sorted column's header: ▼ highest first, ▲ lowest first."""
        if key != self.column:
            return ""
        return " ▼" if self.descending() else " ▲"


def sort_figures(
    indexed: list[tuple[int, CaseFigures]], order: Order
) -> list[tuple[int, CaseFigures]]:
    """Cases in the asked order; ties keep file order (in either direction)."""
    if order.column is None:
        return list(indexed)
    column = COLUMN_BY_KEY[order.column].value

    def value(f: CaseFigures) -> tuple[bool, Any]:
        # An undefined figure (fewer than k attempts: None) sorts below every defined one.
        shown = column(f)
        return (shown is not None, shown if shown is not None else 0)

    if not order.descending():
        return sorted(indexed, key=lambda item: value(item[1]))
    # Stable and descending with ties in file order: sort by value descending, then index.
    ranked = sorted(indexed, key=lambda item: item[0])
    return sorted(ranked, key=lambda item: value(item[1]), reverse=True)
