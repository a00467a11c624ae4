"""How each attempt state is drawn: a symbol (readable without colour) and a component class."""

from __future__ import annotations

from textual.app import App
from textual.color import Color

from passk_tui.core.progress import Cell
from passk_tui.tui.contrast import DERIVED

#: One narrow symbol per cell state; each is distinct without colour.
SYMBOLS: dict[Cell, str] = {
    Cell.PENDING: "·",
    Cell.RUNNING: "◔",
    Cell.RETRYING: "↻",
    Cell.PASSED: "✓",
    Cell.WRONG: "✗",
    Cell.ERRORED: "!",
}

#: The name of each state, used in the legend and as the component-class suffix.
NAMES: dict[Cell, str] = {
    Cell.PENDING: "pending",
    Cell.RUNNING: "running",
    Cell.RETRYING: "retrying",
    Cell.PASSED: "passed",
    Cell.WRONG: "wrong",
    Cell.ERRORED: "errored",
}

#: The app's colour variable per state (see ``tui.contrast``: the theme's, made readable).
THEME_COLOUR: dict[Cell, str] = {cell: f"outcome-{name}" for cell, name in NAMES.items()}
#: Every colour variable Rich text may use.
PALETTE_NAMES = (*DERIVED, "primary", "accent", "foreground")


def palette(app: App) -> dict[str, str]:
    """The theme's colours as opaque hex for Rich text (muted ones come with alpha: blended here)."""
    variables = app.theme_variables
    background = Color.parse(variables.get("background", "#000000"))
    resolved: dict[str, str] = {}
    for name in PALETTE_NAMES:
        value = variables.get(name)
        if value is None:
            continue
        try:
            resolved[name] = (background + Color.parse(value)).hex
        except Exception:  # an unparsable theme value: leave the text uncoloured
            continue
    return resolved
