"""Every character the app draws reads at WCAG AA (4.5:1) in the dark and the light theme.

The ratio is computed from the colours actually rendered (the compositor's segments),
not from the stylesheet, so a theme variable that blends badly is caught too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color
from textual.widgets import Checkbox

from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.messages import ResultsOpened
from passk_tui.tui.contrast import MINIMUM, contrast_ratio, readable
from passk_tui.tui.screens.configure.form import blank_form
from tests.support.app import run_to_end, start_mid_run, synthetic_view

SIZE = (100, 30)
#: Drawing, not text: edges of the footer and toggles, scrollbar thumbs (Textual's own).
DECORATION = set("▐▌▏▕▁▂▃▄▅▆▇")
#: Borders and the progress bar are graphics: WCAG 1.4.11 asks 3:1 of them, not 4.5:1.
GRAPHIC_MINIMUM = 3.0


def is_graphic(text: str) -> bool:
    """Box drawing and block elements only (U+2500 to U+259F)."""
    return all("\u2500" <= c <= "\u259f" for c in text)


def unreadable(app: PasskApp, within: str | None = None) -> dict[str, float]:
    """Each text run under the minimum contrast, with its ratio (only ``within`` a widget:
    a dialog, whose screen behind is dimmed on purpose)."""
    toggles = [w.region for w in app.screen.query(Checkbox)]
    area = app.screen.query_one(within).region if within else None
    low: dict[str, float] = {}
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            start, x = x, x + segment.cell_length
            text = "".join(c for c in segment.text if c not in DECORATION).strip()
            if not text or segment.style is None:
                continue
            if area is not None and not area.contains(start, y):
                continue
            if any(r.contains(start, y) for r in toggles):
                continue  # an unchecked box's X is faint on purpose: it means "off"
            style = segment.style
            assert style.color is not None and style.bgcolor is not None, text
            fg = Color(*style.color.get_truecolor())
            bg = Color(*style.bgcolor.get_truecolor())
            ratio = contrast_ratio(fg, bg)
            if ratio < (GRAPHIC_MINIMUM if is_graphic(text) else MINIMUM):
                low[f"line {y}: {text[:30]!r}"] = round(ratio, 2)
    return low


def test_contrast_ratio_matches_the_wcag_examples() -> None:
    assert contrast_ratio(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio(Color(119, 119, 119), Color(255, 255, 255)) == pytest.approx(
        4.48, abs=0.01
    )
    # The light theme's warning on its background: the 1.4:1 the issue measured.
    assert contrast_ratio(Color.parse("#FEA62B"), Color.parse("#E0E0E0")) < 1.6
    fixed = readable(Color.parse("#FEA62B"), [Color.parse("#E0E0E0"), Color.parse("#D8D8D8")])
    assert contrast_ratio(fixed, Color.parse("#D8D8D8")) >= MINIMUM


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_every_screen_reads_in_both_themes(app_env: Path, theme: str) -> None:
    form = blank_form() | {"agent": "scripted", "version": "1", "cases": "cases.toml"}
    app = PasskApp(form=form, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        await pilot.pause(0.2)
        seen = {"configure": unreadable(app)}
        await start_mid_run(pilot)
        await pilot.pause(0.3)
        seen["run"] = unreadable(app)
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        # A finished evaluation, gate failed, made in memory: running the agent is not the point.
        app.post_message(ResultsOpened(synthetic_view(5)))
        await pilot.pause(0.3)
        seen["results"] = unreadable(app)  # gate failed: the failing figures are marked
        await pilot.press("down", "down", "down", "enter", "down")
        await pilot.pause(0.3)
        seen["case, an errored attempt"] = unreadable(app)
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        seen["help"] = unreadable(app, within="#help-dialog")
        await pilot.press("escape", "f2")
        await pilot.pause(0.3)
        seen["history"] = unreadable(app)
    assert {screen: low for screen, low in seen.items() if low} == {}
