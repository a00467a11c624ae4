"""The run screen's summary line: overall progress, outcome totals, rate, Runs in flight, time left."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from passk_tui.core.reading.vocabulary import Extent, Progress
from passk_tui.core.render.extent_text import attempts_cell, budget_label, time_left_text
from passk_tui.core.text.amounts import clock
from passk_tui.core.text.decimals import fixed
from passk_tui.tui.widgets.line_text import parts_line

BAR_WIDTH = 16


def summary_text(extent: Extent, progress: Progress, colours: dict[str, str]) -> Text:
    """One line, e.g. ``██████░░░ 12/25 attempts  ✓ 9 passed  ✗ 2 wrong  ! 1 errored``.

    ``colours`` maps theme variable names to colours. It fits 80 columns: the pace
    (Runs in flight, rate, time left) is a line of its own, ``pace_text``. Adaptive,
    while the total may still grow, the bar and the count are of the most there can be
    (``12/≤200``), not of a total that moves as the bar fills; held below the plan by a
    Run budget, of what it allows (``12/≤14``; the pace line says why).
    """
    done = extent.finished
    total = extent.total
    filled = min(BAR_WIDTH, round(BAR_WIDTH * done / total)) if total else BAR_WIDTH
    return parts_line(
        ("█" * filled, colours.get("primary", "")),
        ("░" * (BAR_WIDTH - filled), colours.get("muted-text", "")),
        (f" {attempts_cell(extent)} attempts", "bold"),
        (f"  ✓ {sum(progress.passed)} passed", colours.get("outcome-passed", "")),
        (f"  ✗ {sum(progress.wrong)} wrong", colours.get("outcome-wrong", "")),
        (f"  ! {sum(progress.errored)} errored", colours.get("outcome-errored", "")),
    )


def pace_text(
    extent: Extent, progress: Progress, status: str, elapsed: float, *, show_timing: bool = True
) -> str:
    """``4 Runs in flight · 3.1/s · ~0:04 left`` (or ``took 0:09`` once it ended).

    ``elapsed`` is the run's seconds so far (frozen by the caller once it ended);
    with ``show_timing`` off the clock-dependent parts show as dashes so that a
    snapshot of the screen is stable. Adaptive, while more attempts may come, the
    time left is an upper bound (``at most ~0:40 left``). Held below the plan by a Run
    budget, it is for what the budget allows: ``~0:02 left (Run budget)``.
    """
    text = f"{progress.in_flight} Runs in flight"
    rate = progress.finished_here / elapsed if elapsed > 0 else 0.0  # not a resume's stored
    if not show_timing:
        return text + "  ·  -/s  ·  - left"
    if status == "running":
        left = time_left_text(extent, rate) or "- left"
        return text + f"  ·  {fixed(rate, 1)}/s  ·  {left}{budget_label(extent)}"
    return text + f"  ·  {fixed(rate, 1)}/s  ·  took {clock(elapsed)}"


class LiveLine(Widget):
    """A line of text repainted in place ten times a second.

    ``Static.update`` asks for a new layout of the whole screen on every call
    (15% of the app's CPU during a busy run); a line of fixed height drawn with
    the Line API from the text's own segments costs one line, and nothing when
    the text did not change.
    """

    DEFAULT_CSS = "LiveLine { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()
        self._strip: Strip | None = None

    @property
    def text(self) -> Text:
        """What the line says."""
        return self._text

    def show(self, text: Text) -> None:
        """Replace the text and repaint this line only (no layout); the same text: nothing."""
        if text == self._text:
            return
        self._text = text
        self._strip = None
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y:
            return Strip.blank(width)
        if self._strip is None or self._strip.cell_length != width:
            console = self.app.console
            pad = self.rich_style  # the background behind the line, as a Static has it
            text = self._text
            base = pad + console.get_style(text.style) if text.style else pad
            segments = [
                Segment(s.text, base + s.style if s.style else base)
                for s in text.render(console, end="")
            ]
            self._strip = Strip(segments).crop_extend(0, width, pad)
        return self._strip
