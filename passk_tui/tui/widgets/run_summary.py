"""The run screen's summary line: overall progress, outcome totals, rate, Runs in flight, time left."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from passk_tui.core.clock import clock
from passk_tui.core.progress import Progress

BAR_WIDTH = 16


def summary_text(
    progress: Progress,
    status: str,
    colours: dict[str, str],
    elapsed: float,
    *,
    show_timing: bool = True,
) -> Text:
    """One line, e.g. ``[██████░░░] 12/25 · ✓ 9 ✗ 2 ! 1 · 4 in flight · 3.1/s · ~0:04 left``.

    ``colours`` maps theme variable names to colours; ``elapsed`` is the run's
    seconds so far (frozen by the caller once it ended); with ``show_timing`` off the
    clock-dependent parts (rate, elapsed, time left) show as dashes so that a
    snapshot of the screen is stable.
    """
    done, total = progress.finished, progress.total
    filled = round(BAR_WIDTH * done / total) if total else BAR_WIDTH
    text = Text()
    text.append("█" * filled, style=colours.get("primary", ""))
    text.append("░" * (BAR_WIDTH - filled), style="dim")
    text.append(f" {done}/{total} attempts", style="bold")
    text.append("  ")
    text.append(f"✓ {sum(progress.passed)} passed", style=colours.get("success", ""))
    text.append("  ")
    text.append(f"✗ {sum(progress.wrong)} wrong", style=colours.get("warning", ""))
    text.append("  ")
    text.append(f"! {sum(progress.errored)} errored", style=colours.get("error", ""))
    text.append(f"  ·  {progress.in_flight} Runs in flight")
    rate = progress.finished_here / elapsed if elapsed > 0 else 0.0  # not a resume's stored
    if not show_timing:
        text.append("  ·  –/s  ·  – left")
    elif status == "running":
        left = f"~{clock((total - done) / rate)} left" if rate > 0 else "– left"
        text.append(f"  ·  {rate:.1f}/s  ·  {left}")
    else:
        text.append(f"  ·  {rate:.1f}/s  ·  took {clock(elapsed)}")
    return text


class LiveLine(Widget):
    """A line of text repainted in place ten times a second.

    ``Static.update`` asks for a new layout of the whole screen on every call
    (15% of the app's CPU during a busy run); a line of fixed height that only
    repaints itself costs a render of one line.
    """

    DEFAULT_CSS = "LiveLine { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()

    def show(self, text: Text) -> None:
        """Replace the text and repaint this line only (no layout)."""
        self._text = text
        self.refresh()

    def render(self) -> Text:
        return self._text
