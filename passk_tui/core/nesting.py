"""How deep a nested table goes, found without recursion (a hostile file may nest thousands deep)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def nesting_exceeds(
    root: Any, limit: int, children: Callable[[dict[str, Any]], Iterable[Any]]
) -> bool:
    """True when ``root`` nests deeper than ``limit`` levels, a table's ``children`` one level down."""
    pending = [(root, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            pending.extend((child, depth + 1) for child in children(node))
    return False
