"""How deep a nested table lies: a file nested thousands deep is refused in one line, not a RecursionError."""

from __future__ import annotations

from dataclasses import dataclass, replace

from passk_tui.core.errors import InputError


@dataclass(frozen=True, slots=True)
class Nesting:
    """The place of the outermost table (for the message), the deepest level allowed, this level."""

    root: str
    limit: int
    depth: int = 1

    def inner(self, what: str) -> Nesting:
        """One level down; InputError '<root>: <what> nested more than <limit> deep' past the limit."""
        if self.depth >= self.limit:
            raise InputError(f"{self.root}: {what} nested more than {self.limit} deep")
        return replace(self, depth=self.depth + 1)
