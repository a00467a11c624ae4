"""How each attempt state is drawn in the app: the core's symbols and names, and theme colours."""

from __future__ import annotations

from textual.app import App
from textual.color import Color

from passk_tui.core.glyphs import NAMES, SYMBOLS
from passk_tui.core.progress import Cell

__all__ = ["NAMES", "SYMBOLS", "THEME_COLOUR", "palette"]

#: Theme variables per state, for places that colour Rich text rather than CSS (tables).
THEME_COLOUR: dict[Cell, str] = {
    Cell.PENDING: "foreground-muted",
    Cell.RUNNING: "foreground",
    Cell.RETRYING: "primary-lighten-2",
    Cell.PASSED: "success",
    Cell.WRONG: "warning",
    Cell.ERRORED: "error",
}


def palette(app: App) -> dict[str, str]:
    """The theme's colours as opaque hex for Rich text (muted ones come with alpha: blended here)."""
    variables = app.theme_variables
    background = Color.parse(variables.get("background", "#000000"))
    resolved: dict[str, str] = {}
    for name in (
        "primary",
        "secondary",
        "accent",
        "success",
        "warning",
        "error",
        "foreground",
        "foreground-muted",
        "primary-lighten-2",
    ):
        value = variables.get(name)
        if value is None:
            continue
        try:
            resolved[name] = (background + Color.parse(value)).hex
        except Exception:  # an unparsable theme value: leave the text uncoloured
            continue
    return resolved
