"""Loading and validating cases files (TOML and JSON Lines)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from passk_tui.core.checks import Check


@dataclass(frozen=True, slots=True)
class Case:
    """A named input plus the check of its answer (None only under --completion-only)."""

    name: str
    input: Any
    check: Check | None
    spec: Any = None
