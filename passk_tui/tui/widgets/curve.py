"""pass@k and pass^k against k, each estimate with its interval as a bar: drawn in Rich text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from passk_tui.core.reading.vocabulary import Curve, CurvePoint

#: Characters left of the plot: a y label ("1.00") and the axis.
Y_LABEL = 5
#: Marks of the two series: pass@k (rises with k) and pass^k (falls).
AT_K_MARK, HAT_K_MARK = "●", "◆"


def plot_row(value: float, rows: int) -> int:
    """The plot row (0 at the top) of a value in [0, 1]."""
    return round((1.0 - min(max(value, 0.0), 1.0)) * (rows - 1))


def y_axis(row: int, rows: int) -> list[tuple[str, str]]:
    """The y label (1.00, 0.50, 0.00 at the top, middle and bottom) and the axis, of one row."""
    label = {0: "1.00", (rows - 1) // 2: "0.50", rows - 1: "0.00"}.get(row, "")
    return [(label.rjust(Y_LABEL - 1) + " ", "axis"), ("┤" if label else "│", "axis")]


def _columns(n: int, width: int) -> list[tuple[int, int | None, int | None]]:
    """Per plot column: the k it shows and whether pass@k / pass^k is drawn there.

    With room, each k gets a slot with pass@k and pass^k side by side; with more
    k than columns, every column samples one k and draws both series.
    """
    if n == 0 or width <= 0:
        return []
    if n * 2 <= width:
        slot = width / n
        cells: list[tuple[int, int | None, int | None]] = []
        for x in range(width):
            k = min(int(x / slot) + 1, n)
            start = round((k - 1) * slot)
            middle = start + max(0, round(slot) // 2 - 1)
            cells.append((k, k if x == middle else None, k if x == middle + 1 else None))
        return cells
    if n <= width:
        return [(k, k, k) for k in range(1, n + 1)]
    return [(k, k, k) for k in (1 + round(x * (n - 1) / max(width - 1, 1)) for x in range(width))]


def draw_curve(curve: Curve, width: int, height: int) -> list[list[tuple[str, str]]]:
    """The plot as rows of (character, role): roles ``at-k``, ``hat-k``, ``axis`` or ``""``."""
    rows = max(height - 2, 3)
    plot_width = max(width - Y_LABEL - 1, 1)
    grid = [[(" ", "")] * plot_width for _ in range(rows)]
    points = {p.k: p for p in curve.points}
    columns = _columns(len(curve.points), plot_width)
    for x, (_, at_k, hat_k) in enumerate(columns):
        # pass^k first: where the two overlap, pass@k (the gate's figure) is on top.
        if hat_k is not None:
            _bar(grid, x, points[hat_k], "hat-k", rows)
        if at_k is not None:
            _bar(grid, x, points[at_k], "at-k", rows)
    lines: list[list[tuple[str, str]]] = []
    for r in range(rows):
        lines.append([*y_axis(r, rows), *grid[r]])
    lines.append([(" " * Y_LABEL + "└" + "─" * plot_width, "axis")])
    lines.append([(" " * (Y_LABEL + 1) + _k_labels(columns, plot_width), "axis")])
    return lines


def _bar(
    grid: list[list[tuple[str, str]]], x: int, point: CurvePoint, role: str, rows: int
) -> None:
    """One series at one column: its interval as a bar, its estimate as the mark."""
    interval = point.pass_at_k_interval if role == "at-k" else point.pass_hat_k_interval
    estimate = point.pass_at_k if role == "at-k" else point.pass_hat_k
    for r in range(plot_row(interval.high, rows), plot_row(interval.low, rows) + 1):
        grid[r][x] = ("│", role)
    grid[plot_row(float(estimate), rows)][x] = (AT_K_MARK if role == "at-k" else HAT_K_MARK, role)


def _k_labels(columns: list[tuple[int, int | None, int | None]], width: int) -> str:
    """k under the first, middle and last slots (more when they fit), never overlapping."""
    line = [" "] * width
    if not columns:
        return ""
    drawn = [(x, k) for x, (k, at_k, _) in enumerate(columns) if at_k is not None]
    n = columns[-1][0]
    step = max(1, n // 10)
    free_from = 0
    for target in sorted({1, n, *range(step, n + 1, step)}):
        # The first drawn column at or past the target k (with many k, not every k is drawn).
        x, k = next(((x, k) for x, k in drawn if k >= target), drawn[-1])
        label = str(k)
        if x < free_from or x + len(label) > width:
            continue
        line[x : x + len(label)] = label
        free_from = x + len(label) + 1
    return "".join(line).rstrip() + "  k"


class CurvePlot(Widget):
    """A case's pass@k (●) and pass^k (◆) for k = 1..n, bars showing each interval."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"curve--at-k", "curve--hat-k", "curve--axis"}

    DEFAULT_CSS = """
    CurvePlot > .curve--at-k { color: $text-success; text-style: bold; }
    CurvePlot > .curve--hat-k { color: $text-primary; }
    CurvePlot > .curve--axis { color: $text-muted; }
    """

    def __init__(self, curve: Curve, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.curve = curve

    def show(self, curve: Curve) -> None:
        """Draw another curve (the case moved on in a live run)."""
        self.curve = curve
        self.refresh()

    def render(self) -> Text:
        if not self.curve.points:
            return Text("No attempt has finished yet: no curve to draw.", style="dim")
        styles = {
            role: self.get_component_rich_style(f"curve--{role}")
            for role in ("at-k", "hat-k", "axis")
        }
        lines = draw_curve(self.curve, self.content_size.width, self.content_size.height)
        return plot_text(lines, styles)


def plot_text(lines: list[list[tuple[str, str]]], styles: Mapping[str, Style]) -> Text:
    """A plot's rows of (text, role) as one uncropped Rich text, each role in its style."""
    text = Text(no_wrap=True, overflow="crop")
    for number, line in enumerate(lines):
        if number:
            text.append("\n")
        for chars, role in line:
            text.append(chars, style=styles.get(role, ""))
    return text
