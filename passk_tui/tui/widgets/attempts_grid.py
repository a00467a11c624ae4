"""The live attempts grid: a row per case, a cell per attempt, drawn line by line (Line API).

Only the lines on screen are rendered, each from ``Progress`` (a bytearray of
cell states per case), and rendered lines are kept in an LRU cache keyed by
their content: a repaint of a grid where three cells changed renders three
lines. The screen calls ``refresh_from_progress`` on a timer; nothing here
reacts to individual attempt events.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from passk_tui.core.figures import two_decimals
from passk_tui.core.progress import Cell, Progress
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS

#: Longest case name shown in full; longer names end in "…".
NAME_WIDTH_MAX = 32
_GAP = "  "
_COUNT_HEADERS = ("passed", "wrong", "errored")


class AttemptsGrid(ScrollView, can_focus=True):
    """Every case's attempts as a grid of symbols, with its live counts, pass@1 and pass@k."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_case", "Open case"),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First case", show=False),
        Binding("end", "last", "Last case", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "attempts-grid--header",
        "attempts-grid--cursor",
        "attempts-grid--name",
        "attempts-grid--figure",
        *(f"attempts-grid--{name}" for name in NAMES.values()),
    }

    cursor_row: reactive[int] = reactive(0)
    """The case under the cursor (its index in the file order)."""

    class CaseChosen(Message):
        """Enter (or a click on the cursor row) asked to open a case."""

        def __init__(self, case_index: int) -> None:
            super().__init__()
            self.case_index = case_index

    def __init__(self, progress: Progress, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.progress = progress
        names = progress.case_names
        self._name_width = max(4, min(NAME_WIDTH_MAX, max((len(n) for n in names), default=4)))
        self._cells_width = max(len("attempts"), progress.attempts * 2 - 1)
        self._figure_headers = (*_COUNT_HEADERS, "pass@1", f"pass@{progress.k}")
        self._lines: LRUCache[tuple, Strip] = LRUCache(1024)
        self._seen_version = -1
        self._palettes: dict[bool, dict[str, Style]] = {}
        self.virtual_size = Size(self._line_width(), len(names) + 1)

    # -- drawing -----------------------------------------------------------------------

    def _line_width(self) -> int:
        figures = sum(len(h) + 2 for h in self._figure_headers)
        return 1 + self._name_width + 2 + self._cells_width + 1 + figures + 1

    def refresh_from_progress(self) -> bool:
        """Repaint when Progress moved since the last call; True when it did."""
        if self.progress.version == self._seen_version:
            return False
        self._seen_version = self.progress.version
        self.refresh()
        return True

    def notify_style_update(self) -> None:
        """A theme or CSS change: the cached lines and styles carry old colours."""
        super().notify_style_update()
        self._lines.clear()
        self._palettes.clear()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        blank = self._palette(False)[""]
        if y == 0:
            strip = self._header_strip()
        else:
            row = scroll_y + y - 1
            if row >= len(self.progress.case_names):
                return Strip.blank(width, blank)
            strip = self._row_strip(row)
        return strip.crop_extend(scroll_x, scroll_x + width, blank)

    def _palette(self, is_cursor: bool) -> dict[str, Style]:
        """Every part's style for a plain or a cursor row, worked out once per theme.

        ``rich_style`` walks the DOM on each call: with 48 lines a frame at 10 frames a
        second that cost more than drawing the lines, so it is looked up here only.
        """
        cached = self._palettes.get(is_cursor)
        if cached is not None:
            return cached
        base = self.rich_style
        if is_cursor:
            base += self.get_component_rich_style("attempts-grid--cursor")
        styles = {"": base}
        for name in ("header", "name", "figure", *NAMES.values()):
            component = self.get_component_rich_style(f"attempts-grid--{name}")
            styles[name] = base + Style(color=component.color, bold=component.bold)
        self._palettes[is_cursor] = styles
        return styles

    def _header_strip(self) -> Strip:
        key = ("header",)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        text = " " + "case".ljust(self._name_width) + _GAP + "attempts".ljust(self._cells_width)
        text += " " + "".join(f"  {h}" for h in self._figure_headers) + " "
        strip = Strip([Segment(text, self._palette(False)["header"])])
        self._lines[key] = strip
        return strip

    def _row_strip(self, row: int) -> Strip:
        cells = self.progress.cells[row]
        is_cursor = row == self.cursor_row and self.has_focus
        key = (row, bytes(cells), is_cursor, self.size.width if is_cursor else 0)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        name = self.progress.case_names[row]
        if len(name) > self._name_width:
            name = name[: self._name_width - 1] + "…"
        palette = self._palette(is_cursor)
        base = palette[""]
        segments = [Segment(" " + name.ljust(self._name_width) + _GAP, palette["name"])]
        styles = {cell: palette[NAMES[cell]] for cell in Cell}
        for index, state in enumerate(cells):
            cell = Cell(state)
            segments.append(Segment(SYMBOLS[cell], styles[cell]))
            if index < len(cells) - 1:
                segments.append(Segment(" ", base))
        pad = self._cells_width - (len(cells) * 2 - 1)
        figures = self.progress.figures(row)
        counts = (figures.passed, figures.wrong, figures.errored)
        texts = [str(c) for c in counts]
        if figures.n:
            texts += [two_decimals(figures.pass_at_1), two_decimals(figures.pass_at_k)]
        else:
            texts += ["–", "–"]
        figure_style = palette["figure"]
        segments.append(Segment(" " * (pad + 1), base))
        for header, text, cell in zip(
            self._figure_headers,
            texts,
            (Cell.PASSED, Cell.WRONG, Cell.ERRORED, None, None),
            strict=True,
        ):
            style = styles[cell] if cell is not None and text != "0" else figure_style
            segments.append(Segment("  " + text.rjust(len(header)), style))
        segments.append(Segment(" ", base))
        strip = Strip(segments)
        if is_cursor:  # the highlight spans the whole width, not just the text
            strip = strip.extend_cell_length(max(self.size.width, strip.cell_length), base)
        self._lines[key] = strip
        return strip

    # -- the cursor --------------------------------------------------------------------

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _visible_rows(self) -> int:
        return max(1, self.size.height - 1)

    def _scroll_to_cursor(self) -> None:
        top = round(self.scroll_offset.y)
        rows = self._visible_rows()
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + rows:
            self.scroll_to(y=self.cursor_row - rows + 1, animate=False)

    def _move(self, row: int) -> None:
        self.cursor_row = max(0, min(len(self.progress.case_names) - 1, row))

    def action_cursor_up(self) -> None:
        self._move(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self._move(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self._move(self.cursor_row - self._visible_rows())

    def action_page_down(self) -> None:
        self._move(self.cursor_row + self._visible_rows())

    def action_first(self) -> None:
        self._move(0)

    def action_last(self) -> None:
        self._move(len(self.progress.case_names) - 1)

    def action_open_case(self) -> None:
        self.post_message(self.CaseChosen(self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        """A click moves the cursor; a click on the cursor row (or a double click) opens it."""
        if event.y < 1:
            return
        row = round(self.scroll_offset.y) + event.y - 1
        if row >= len(self.progress.case_names):
            return
        if row == self.cursor_row or event.chain > 1:
            self.cursor_row = row
            self.action_open_case()
        else:
            self.cursor_row = row
