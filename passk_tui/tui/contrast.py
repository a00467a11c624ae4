"""WCAG 2 contrast, and the app's own colour variables derived from the theme to be readable.

A theme's ``warning`` on a light background is 1.4:1; the app's text colours are
the theme's, moved toward black or white until they read at ``MINIMUM`` against
every background the app draws text on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.color import Color

#: WCAG AA for normal text.
MINIMUM = 4.5
#: The app's text colours and the theme variable (or, for a hue no theme names, the colour)
#: each starts from. The gate's verdicts have hues of their own: a failed gate is not a
#: wrong answer (orange) nor an errored Run (red), and undecided is neither pass nor fail.
DERIVED = {
    "outcome-passed": "text-success",
    "outcome-wrong": "text-warning",
    "outcome-errored": "text-error",
    "outcome-running": "foreground",
    "outcome-retrying": "text-primary",
    "outcome-pending": "foreground-muted",
    "gate-fail": "#A070FF",
    "gate-undecided": "text-secondary",
    "muted-text": "foreground-muted",
}
#: Where text is drawn: the screen, tables and panels, their zebra stripes, the table cursor.
BACKGROUNDS = (
    "background",
    "surface",
    "panel",
    "surface-lighten-1",
    "surface-darken-1",
    "primary-muted",
)


def luminance(colour: Color) -> float:
    """WCAG relative luminance of an opaque colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def contrast_ratio(a: Color, b: Color) -> float:
    """(L1 + 0.05) / (L2 + 0.05), lighter over darker: 1 to 21."""
    la, lb = luminance(a), luminance(b)
    lighter, darker = max(la, lb), min(la, lb)
    return (lighter + 0.05) / (darker + 0.05)


def readable(colour: Color, backgrounds: Sequence[Color], minimum: float = MINIMUM) -> Color:
    """``colour``, blended toward black or white (whichever the backgrounds contrast with) until
    it reads at ``minimum`` on every one of ``backgrounds``."""
    dark_backgrounds = sum(luminance(b) for b in backgrounds) / len(backgrounds) < 0.18
    target = Color(255, 255, 255) if dark_backgrounds else Color(0, 0, 0)
    for step in range(21):
        candidate = colour.blend(target, step / 20)
        if all(contrast_ratio(candidate, b) >= minimum for b in backgrounds):
            return candidate
    return target


def derived_variables(variables: Mapping[str, str]) -> dict[str, str]:
    """The app's text colours for a theme's variables, as hex."""
    background = Color.parse(variables.get("background", "#000000"))
    grounds = [
        background + Color.parse(variables[name]) for name in BACKGROUNDS if name in variables
    ] or [background]
    derived: dict[str, str] = {}
    for name, source in DERIVED.items():
        value = source if source.startswith("#") else variables.get(source)
        start = background + Color.parse(value or variables.get("foreground", "#888"))
        derived[name] = readable(start, grounds).hex
    # Textual's own parts drawn in the theme's colours: the footer's keys (accent on the
    # panel: 2.9:1 in the light theme) and the tables' cursor row (text on primary: 3.8:1).
    panel = background + Color.parse(
        variables.get("footer-background", variables.get("panel", "#000"))
    )
    accent = background + Color.parse(variables.get("accent", "#888"))
    derived["footer-key-foreground"] = readable(accent, [panel]).hex
    derived["block-cursor-background"] = variables.get(
        "primary-muted", variables.get("panel", "#000")
    )
    derived["block-cursor-foreground"] = variables.get("foreground", "#fff")
    return derived
