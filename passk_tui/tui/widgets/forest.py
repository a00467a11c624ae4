"""A forest plot: one row per case, its figure's interval as a bar on [0, 1], drawn line by line."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from passk_tui.core.reading.vocabulary import ForestRow, Interval
from passk_tui.core.text.figure_text import interval_text, two_decimals
from passk_tui.core.text.terminal_text import terminal_safe

#: The figure and its interval after the bar: "0.90 0.55-1.00".
FIGURE_WIDTH = 15
#: The role (component class suffix) of a row by its gate verdict.
VERDICT_ROLE = {"pass": "pass", "fail": "fail", "undecided": "undecided", None: "plain"}


def name_width(rows: Sequence[ForestRow], width: int) -> int:
    """Names take what they need, up to a third of the line."""
    longest = max((len(r.name) for r in rows), default=4)
    return max(4, min(longest, width // 3))


def bar_width(width: int, names: int) -> int:
    return max(width - names - FIGURE_WIDTH - 2, 10)


def _x(value: float, bar: int) -> int:
    return round(min(max(value, 0.0), 1.0) * (bar - 1))


def interval_bar(
    interval: Interval | None,
    estimate: Fraction | None,
    bar: int,
    gate: Fraction | None,
    role: str,
) -> list[tuple[str, str]]:
    """An interval on [0, 1] as ``bar`` (char, role) cells: ├──●──┤ over a dotted axis, gate ┊."""
    cells = [("·" if x in (0, bar - 1, (bar - 1) // 2) else " ", "axis") for x in range(bar)]
    if interval is not None and estimate is not None:
        low, high = _x(interval.low, bar), _x(interval.high, bar)
        for x in range(low, high + 1):
            cells[x] = ("─", role)
        cells[low] = ("├" if low < high else "│", role)
        cells[high] = ("┤" if low < high else "│", role)
        cells[_x(float(estimate), bar)] = ("●", role)
    if gate is not None:
        # The gate stays visible where an interval crosses it: that is the undecided case.
        x = _x(float(gate), bar)
        if cells[x][0] != "●":  # the estimate stays visible on the gate
            cells[x] = ("┼" if cells[x][0] == "─" else "┊", "gate")
    return cells


def draw_row(row: ForestRow, names: int, bar: int, gate: Fraction | None) -> list[tuple[str, str]]:
    """One case as (text, role) pieces: name, the bar (with the gate's ┊), the figure."""
    name = terminal_safe(row.name)
    name = name if len(name) <= names else name[: names - 1] + "…"
    role = VERDICT_ROLE[row.verdict]
    if row.interval is None or row.estimate is None:
        figure = f"{'-':>4} (n={row.n})"
    else:
        figure = f"{two_decimals(row.estimate)} {interval_text(row.interval)}"
    pieces = [(name.ljust(names) + " ", "name")]
    pieces.extend(interval_bar(row.interval, row.estimate, bar, gate, role))
    pieces.append((" " + figure.ljust(FIGURE_WIDTH - 1), role))
    return pieces


def scale_line(names: int, bar: int) -> str:
    """The axis under the header: 0, 0.5 and 1 over the bar's dots."""
    line = [" "] * bar
    for x, label in ((0, "0"), ((bar - 1) // 2, "0.5"), (bar - 1, "1")):
        start = min(x, bar - len(label))
        line[start : start + len(label)] = label
    return " " * (names + 1) + "".join(line)


class ForestPlot(ScrollView, can_focus=True):
    """Every case's interval on one axis; scrolls, drawing only the rows on screen."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "forest--name",
        "forest--axis",
        "forest--gate",
        "forest--plain",
        "forest--pass",
        "forest--fail",
        "forest--undecided",
    }

    DEFAULT_CSS = """
    ForestPlot > .forest--name { color: $text; }
    ForestPlot > .forest--axis { color: $text-muted; }
    ForestPlot > .forest--gate { color: $foreground; text-style: bold; }
    ForestPlot > .forest--plain { color: $text-primary; }
    ForestPlot > .forest--pass { color: $text-success; }
    ForestPlot > .forest--fail { color: $text-error; text-style: bold; }
    ForestPlot > .forest--undecided { color: $text-warning; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[ForestRow] = []
        self.gate: Fraction | None = None

    def show(self, rows: list[ForestRow], gate: Fraction | None) -> None:
        self.rows = rows
        self.gate = gate
        self.virtual_size = Size(self.scrollable_content_region.width, len(rows))
        self.refresh()

    def layout_widths(self) -> tuple[int, int]:
        """(name width, bar width) at the current size: the header lines up with them."""
        width = self.scrollable_content_region.width
        names = name_width(self.rows, width)
        return names, bar_width(width, names)

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if not 0 <= index < len(self.rows):
            return Strip.blank(width, self.rich_style)
        names, bar = self.layout_widths()
        styles: dict[str, Style] = {}
        segments = []
        for text, role in draw_row(self.rows[index], names, bar, self.gate):
            if role not in styles:
                styles[role] = self.get_component_rich_style(f"forest--{role}")
            segments.append(Segment(text, styles[role]))
        return Strip(segments).adjust_cell_length(width, self.rich_style)

    def on_resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))
