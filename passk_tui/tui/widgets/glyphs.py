"""How each attempt state is drawn in the app: the core's symbols and names, and theme colours."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.color import Color
from textual.dom import DOMNode

from passk_tui.core.reading.vocabulary import Cell
from passk_tui.core.render.glyphs import NAMES, SYMBOLS
from passk_tui.tui.contrast import DERIVED

__all__ = ["NAMES", "SYMBOLS", "THEME_COLOUR", "follow_theme", "palette"]

#: The app's colour variable per state (see ``tui.contrast``: the theme's, made readable).
THEME_COLOUR: dict[Cell, str] = {cell: f"outcome-{name}" for cell, name in NAMES.items()}
#: Every colour variable Rich text may use.
PALETTE_NAMES = (*DERIVED, "primary", "accent", "foreground")


def palette(app: App[Any]) -> dict[str, str]:
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


def follow_theme(node: DOMNode, redraw: Callable[[], object]) -> None:
    """Call ``redraw`` whenever the theme changes, on screen or not (under another screen).

    Text coloured in Python from ``palette`` holds the colours of the theme it was drawn in:
    the stylesheet's refresh reaches widgets, not the Rich text already handed to them. The
    signal comes once the new theme's variables are in (``App._watch_theme``)."""
    node.app.theme_changed_signal.subscribe(node, lambda _theme: redraw())
