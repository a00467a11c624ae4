"""One case's pass@1 over time: an evaluation per slot, its interval as a bar, drawn in Rich text.

The mark says the evaluation's verdict without colour: ● passed (the gate, or all passed),
✗ not, ○ no verdict (an undecided gate, an unfinished case). A ┊ column stands between two
versions and the version is written under its first evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.widget import Widget

from passk_tui.core.reading.vocabulary import TrendPoint
from passk_tui.tui.widgets.curve import Y_LABEL, plot_row, plot_text, y_axis

#: The mark of an evaluation by its verdict on the case.
VERDICT_MARK = {True: "●", False: "✗", None: "○"}
VERDICT_ROLE = {True: "pass", False: "fail", None: "plain"}
#: The widest slot an evaluation gets: a few evaluations spread no wider than this.
SLOT_MAX = 16


def shown_points(points: Sequence[TrendPoint], plot_width: int) -> list[TrendPoint]:
    """The newest points that fit, one column at least each (the oldest go first)."""
    return list(points[-plot_width:]) if plot_width > 0 else []


def draw_trend(
    points: Sequence[TrendPoint], width: int, height: int
) -> list[list[tuple[str, str]]]:
    """The plot as rows of (text, role): roles ``pass``, ``fail``, ``plain``, ``axis``, ``""``."""
    rows = max(height - 2, 3)
    plot_width = max(width - Y_LABEL - 1, 1)
    shown = shown_points(points, plot_width)
    slot = max(1, min(SLOT_MAX, plot_width // max(len(shown), 1)))
    grid = [[(" ", "")] * plot_width for _ in range(rows)]
    labels = [" "] * plot_width
    for i, point in enumerate(shown):
        start = i * slot
        new_version = i == 0 or shown[i - 1].version != point.version
        if new_version:
            label = f"v{point.version}"
            if i and slot >= 3:
                for r in range(rows):
                    grid[r][start] = ("┊", "axis")
            at = start + 1 if i and slot >= 3 else start
            if at + len(label) <= plot_width and all(
                c == " " for c in labels[at : at + len(label)]
            ):
                labels[at : at + len(label)] = label
        x = start + slot // 2
        role = VERDICT_ROLE[point.verdict]
        for r in range(plot_row(point.interval.high, rows), plot_row(point.interval.low, rows) + 1):
            grid[r][x] = ("│", role)
        grid[plot_row(float(point.pass_at_1), rows)][x] = (VERDICT_MARK[point.verdict], role)
    lines = [[*y_axis(r, rows), *grid[r]] for r in range(rows)]
    lines.append([(" " * Y_LABEL + "└" + "─" * plot_width, "axis")])
    lines.append([(" " * (Y_LABEL + 1) + "".join(labels).rstrip(), "axis")])
    return lines


class TrendPlot(Widget):
    """A case's pass@1 in each evaluation of the series, oldest left, bars its intervals."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "trend--pass",
        "trend--fail",
        "trend--plain",
        "trend--axis",
    }

    DEFAULT_CSS = """
    TrendPlot > .trend--pass { color: $text-success; text-style: bold; }
    TrendPlot > .trend--fail { color: $text-error; text-style: bold; }
    TrendPlot > .trend--plain { color: $text-primary; }
    TrendPlot > .trend--axis { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points: list[TrendPoint] = []

    def show(self, points: list[TrendPoint]) -> None:
        """Draw another case's trend."""
        self.points = points
        self.refresh()

    def render(self) -> Text:
        if not self.points:
            return Text("No evaluation measured this case.", style="dim")
        styles = {
            role: self.get_component_rich_style(f"trend--{role}")
            for role in ("pass", "fail", "plain", "axis")
        }
        lines = draw_trend(self.points, self.content_size.width, self.content_size.height)
        return plot_text(lines, styles)
