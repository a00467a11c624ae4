"""How each attempt state is written: one symbol (readable without colour) and a name.

Shared by the app's grid and the HTML report, so both draw an attempt the same way.
"""

from __future__ import annotations

from passk_tui.core.stats.progress import Cell

#: One narrow symbol per cell state; each is distinct without colour.
SYMBOLS: dict[Cell, str] = {
    Cell.PENDING: "·",
    Cell.RUNNING: "◔",
    Cell.RETRYING: "↻",
    Cell.PASSED: "✓",
    Cell.WRONG: "✗",
    Cell.ERRORED: "!",
}

#: The name of each state, used in legends and as the style-class suffix.
NAMES: dict[Cell, str] = {
    Cell.PENDING: "pending",
    Cell.RUNNING: "running",
    Cell.RETRYING: "retrying",
    Cell.PASSED: "passed",
    Cell.WRONG: "wrong",
    Cell.ERRORED: "errored",
}
