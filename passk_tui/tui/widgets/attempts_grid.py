"""The live attempts grid: a row per case, a cell per attempt, drawn line by line (Line API).

Each line has three parts: the case name (fixed, left), the attempts' cells (the
middle, which scrolls sideways on its own), and the counts and figures (fixed,
right). So at any width and with any number of attempts the names and figures
stay on screen; only the cells move. Rows may differ in length (a case given
more attempts than another): each row draws the cells it has.

How many attempts look:

- when they fit spaced out (``✓ ✗ ✓``), they are;
- else packed one column per attempt (``✓✗✓``);
- else (hundreds or a thousand) packed, a window of them at a time: the header
  says which (``attempts 1-40 of 1000 ←→``) and Left/Right move the window.
  While the run is live the window follows the frontier (``cells_window``).
  Left and Right are bound (on the keys line, in help and the palette) only
  while there are attempts that way to move to.

Only the lines on screen are rendered, each from ``Progress``, and rendered
lines are kept in an LRU cache keyed by their content: a repaint of a grid
where three cells changed renders three lines. The part of a row right of its
name (its cells and figures) is drawn from its cells alone, so rows alike share
it: when a pass of a run at 200 in flight changes every row on screen at once,
the figures are worked out once per kind of row, not once per row. The screen calls
``refresh_from_progress`` on a timer; nothing here reacts to attempt events.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from passk_tui.core.reading.vocabulary import Interval, Progress
from passk_tui.core.text.figure_text import interval_text, two_decimals
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.widgets.cells_window import CellsWindow
from passk_tui.tui.widgets.glyphs import NAMES
from passk_tui.tui.widgets.grid_lines import (
    GAP,
    cells_segments,
    figures_segments,
    window_label,
)
from passk_tui.tui.widgets.row_cursor import CURSOR_BINDINGS, RowCursor

#: Longest case name shown in full; longer names end in "…".
NAME_WIDTH_MAX = 32
#: The narrowest the name column gets when the screen is narrow.
NAME_WIDTH_MIN = 10
#: The narrowest the cells' window gets (the names shrink first).
CELLS_WIDTH_MIN = 8
_COUNT_HEADERS = ("passed", "wrong", "errored")


class AttemptsGrid(RowCursor, ScrollView, can_focus=True):
    """Every case's attempts as a grid of symbols, with its live counts, pass@1 and pass@k."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter", "open_case", "Open case", tooltip="The case under the cursor: its attempts"
        ),
        *CURSOR_BINDINGS,
        Binding(
            "left",
            "cells_left",
            "Earlier attempts",
            show=False,
            tooltip="A long grid's window, to earlier attempts",
        ),
        Binding(
            "right",
            "cells_right",
            "Later attempts",
            show=False,
            tooltip="A long grid's window, to later attempts",
        ),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "attempts-grid--header",
        "attempts-grid--cursor",
        "attempts-grid--name",
        "attempts-grid--figure",
        *(f"attempts-grid--{name}" for name in NAMES.values()),
    }

    cursor_row: reactive[int] = reactive(0)
    """The shown row under the cursor (an index into ``rows``)."""

    class CaseChosen(Message):
        """Enter (or a click on the cursor row) asked to open a case."""

        def __init__(self, case_index: int) -> None:
            super().__init__()
            self.case_index = case_index

    def __init__(
        self,
        progress: Progress,
        *,
        interval: Callable[[int], Interval | None] | None = None,
        interval_header: str = "",
        interval_kind: Callable[[], Hashable] | None = None,
        sampled: Callable[[int], bool] | None = None,
        live: Callable[[], bool] | None = None,
        id: str | None = None,
    ) -> None:
        """``interval(case)``: its live pass@k interval (None while undefined), headed
        ``interval_header``; ``interval_kind()``: the method it is read by now (it changes
        when a fixed-n run's last attempt lands, every line with it); ``sampled(case)``:
        whether it still has attempts to come; ``live()``: whether attempts are still
        landing (the window follows them)."""
        super().__init__(id=id)
        self.progress = progress
        self._interval = interval
        self._interval_kind = interval_kind or (lambda: None)
        self._sampled = sampled or (lambda case_index: False)
        #: The attempts shown when a row does not fit, following a live run.
        self.window = CellsWindow(progress, live or (lambda: False))
        #: The names as drawn: escapes visible (a stored name may hold one).
        self._names = names = [terminal_safe(name) for name in progress.case_names]
        #: The cases shown, as indices in file order (all, or those a search matched).
        self.rows: list[int] = list(range(len(names)))
        self._longest_name = max(4, min(NAME_WIDTH_MAX, max((len(n) for n in names), default=4)))
        self._figure_headers: tuple[str, ...] = (*_COUNT_HEADERS, "pass@1", f"pass@{progress.k}")
        if interval is not None:
            self._figure_headers += (interval_header,)
        self._figures_width = sum(len(h) + 2 for h in self._figure_headers) + 1
        self._lines: LRUCache[tuple[Hashable, ...], Strip] = LRUCache(1024)
        #: A row's part right of its name, by what it is drawn from (its cells, not its case).
        self._tails: LRUCache[tuple[Hashable, ...], list[Segment]] = LRUCache(1024)
        self._seen_version = -1
        #: What the last repaint showed: the frame (layout, window, scroll, cursor) and lines.
        self._painted_frame: tuple[Hashable, ...] | None = None
        self._painted: dict[int, tuple[int, bytes, bool]] = {}
        self._palettes: dict[bool, dict[str, Style]] = {}
        self._line_layout: tuple[tuple[int, int], tuple[int, int, int]] = ((-1, -1), (0, 0, 0))
        #: Whether the window could move to earlier and to later attempts when last bound.
        self._movable = (False, False)
        self.virtual_size = Size(0, len(self.rows) + 1)

    # -- the layout of a line ----------------------------------------------------------

    def _width(self) -> int:
        """The width lines are drawn at (Textual works the region out anew on each ask)."""
        return self.scrollable_content_region.width or self.size.width

    def _layout(self, width: int | None = None) -> tuple[int, int, int]:
        """(name width, cells window width, columns per attempt) at the present width.

        Worked out once per width and Progress change, not for every line drawn."""
        width = self._width() if width is None else width
        key = (width, self.progress.version)
        if self._line_layout[0] != key:
            self._line_layout = (key, self._work_out_layout(width))
        return self._line_layout[1]

    def _work_out_layout(self, width: int) -> tuple[int, int, int]:
        fixed = 1 + 2 + len(GAP) + 1 + self._figures_width  # 2: the sampled mark and its space
        name_width = max(NAME_WIDTH_MIN, min(self._longest_name, width - fixed - CELLS_WIDTH_MIN))
        name_width = min(name_width, self._longest_name)
        room = max(CELLS_WIDTH_MIN, width - fixed - name_width)
        longest = self.window.longest()
        step = 2 if longest * 2 - 1 <= room else 1
        # No wider than the cells need: the figures sit beside the attempts, not far off.
        needed = max(len("attempts"), longest * 2 - 1 if step == 2 else longest)
        return name_width, min(room, needed), step

    def attempts_shown(self, layout: tuple[int, int, int] | None = None) -> tuple[int, int]:
        """The attempts in the cells' window: (first, last) 1-based, inclusive."""
        _, window, step = self._layout() if layout is None else layout
        return self.window.shown(window if step == 1 else (window + 1) // 2)

    def on_resize(self) -> None:
        self._lines.clear()
        self._tails.clear()
        self._rebind()

    def _window_movable(self) -> tuple[bool, bool]:
        """Whether there are attempts before the window's first and after its last."""
        first, last = self.attempts_shown()
        return first > 1, last < self.window.longest()

    def _rebind(self) -> None:
        """Left and Right bound again when the window's room to move changed (a resize, a
        move, a row that grew past the window)."""
        movable = self._window_movable()
        if movable != self._movable:
            self._movable = movable
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Earlier and Later attempts only where the window has attempts that way."""
        if action not in ("cells_left", "cells_right"):
            return True
        earlier, later = self._window_movable()
        return earlier if action == "cells_left" else later

    # -- drawing -----------------------------------------------------------------------

    def refresh_from_progress(self) -> bool:
        """Repaint the lines Progress changed since the last call; True when it moved.

        Only lines whose case changed are marked dirty: once the cases on screen have
        finished, a tick of a 1,000-case run repaints nothing here (a whole-widget
        refresh re-styled and re-composited every line, ten times a second)."""
        if self.progress.version == self._seen_version:
            return False
        self._seen_version = self.progress.version
        frame = (
            self._layout(),
            self.attempts_shown(),
            self.window.longest(),
            round(self.scroll_offset.y),
            self.cursor_row,
            self.has_focus,
            self.size,
            self._interval_kind(),
        )
        shown = self._shown_rows(frame[3])
        if frame != self._painted_frame:
            self.refresh()
            self._rebind()
        else:
            width = self.size.width
            changed = [
                Region(0, y, width, 1) for y, line in shown.items() if self._painted.get(y) != line
            ]
            if changed:
                self.refresh(*changed)
        self._painted_frame, self._painted = frame, shown
        return True

    def _shown_rows(self, top: int) -> dict[int, tuple[int, bytes, bool]]:
        """What each line on screen draws from: its case, its cells, whether it is sampled."""
        cells, rows = self.progress.cells, self.rows
        return {
            y: (case, bytes(cells[case]), self._sampled(case))
            for y, case in enumerate(rows[top : top + self._visible_rows()], start=1)
        }

    def notify_style_update(self) -> None:
        """A theme or CSS change: the cached lines and styles carry old colours."""
        super().notify_style_update()
        self._lines.clear()
        self._tails.clear()
        self._palettes.clear()

    def render_line(self, y: int) -> Strip:
        scroll_y = self.scroll_offset.y
        width = self._width()
        blank = self._palette(False)[""]
        layout = self._layout(width)
        shown = self.attempts_shown(layout)
        if y == 0:
            strip = self._header_strip(layout, shown)
        else:
            row = scroll_y + y - 1
            if row >= len(self.rows):
                return Strip.blank(width, blank)
            strip = self._row_strip(row, layout, shown)
        return strip.crop_extend(0, width, blank)

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
        # Padding in a style of its own, so it never joins the text after it into one run
        # that starts with spaces (SVG viewers outside browsers drop those).
        styles = {"": base, "pad": base + Style(strike=False)}
        for name in ("header", "name", "figure", *NAMES.values()):
            component = self.get_component_rich_style(f"attempts-grid--{name}")
            styles[name] = base + Style(color=component.color, bold=component.bold)
        self._palettes[is_cursor] = styles
        return styles

    def _header_strip(self, layout: tuple[int, int, int], shown: tuple[int, int]) -> Strip:
        name_width, window, _ = layout
        first, last = shown
        longest = self.window.longest()
        key = ("header", layout, first)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        label = window_label(first, last, longest, window)
        # Every run starts with its text, its padding before it a run of its own: SVG
        # viewers outside browsers drop a run's leading spaces (see widgets/line_text.py).
        header, base = self._palette(False)["header"], self._palette(False)["pad"]
        segments = [
            Segment(" ", base),
            Segment("case".ljust(name_width + 2) + GAP + label, header),
        ]
        for h in self._figure_headers:
            segments += [Segment(GAP, base), Segment(h, header)]
        segments.append(Segment(" ", base))
        strip = Strip(segments)
        self._lines[key] = strip
        return strip

    def _row_strip(self, row: int, layout: tuple[int, int, int], shown: tuple[int, int]) -> Strip:
        """A case's line: its name, then the part right of it, shared by the rows alike."""
        name_width = layout[0]
        case_index = self.rows[row]
        first, last = shown
        is_cursor = row == self.cursor_row and self.has_focus
        sampled = self._sampled(case_index)
        row_cells = bytes(self.progress.cells[case_index])
        tail_key = (row_cells, sampled, is_cursor, layout, first, self._interval_kind())
        key = (case_index, *tail_key)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        palette = self._palette(is_cursor)
        tail = self._tails.get(tail_key)
        if tail is None:
            cells = row_cells[first - 1 : last]
            tail = self._tails[tail_key] = self._tail(case_index, cells, sampled, palette, layout)
        name = self._names[case_index]
        if len(name) > name_width:
            name = name[: name_width - 1] + "…"
        segments = [
            Segment(" ", palette["pad"]),
            Segment(name.ljust(name_width) + " ", palette["name"]),
        ]
        strip = Strip([*segments, *tail])
        if is_cursor:  # the highlight spans the whole width, not just the text
            strip = strip.extend_cell_length(max(self.size.width, strip.cell_length), palette[""])
        self._lines[key] = strip
        return strip

    def _tail(
        self,
        case_index: int,
        cells: bytes,
        sampled: bool,
        palette: dict[str, Style],
        layout: tuple[int, int, int],
    ) -> list[Segment]:
        """The row right of its name: its cells and figures (a function of its cells alone,
        so rows alike share it)."""
        _, window, step = layout
        figures = self.progress.figures(case_index)
        texts = [str(figures.passed), str(figures.wrong), str(figures.errored)]
        if figures.n:
            texts += [two_decimals(figures.pass_at_1), two_decimals(figures.pass_at_k)]
        else:
            texts += ["-", "-"]
        if self._interval is not None:
            interval = self._interval(case_index)
            texts.append(interval_text(interval) if interval is not None else "-")
        return [
            *cells_segments(cells, sampled, window, step, palette),
            *figures_segments(self._figure_headers, texts, palette),
        ]

    # -- search ------------------------------------------------------------------------

    def show_only(self, rows: list[int]) -> None:
        """Show just these cases (a search's matches), keeping the cursor's case if shown."""
        current = self.case_under_cursor()
        self.rows = rows
        self.virtual_size = Size(0, len(rows) + 1)
        self.cursor_row = rows.index(current) if current in rows else 0
        self.scroll_to(y=0, animate=False)
        self.refresh()

    def case_under_cursor(self) -> int | None:
        return self.rows[self.cursor_row] if 0 <= self.cursor_row < len(self.rows) else None

    # -- the cursor --------------------------------------------------------------------

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def row_total(self) -> int:
        return len(self.rows)

    def _shift_cells(self, direction: int) -> None:
        _, window, step = self._layout()
        self.window.shift(direction, window if step == 1 else (window + 1) // 2)
        self.refresh()
        self._rebind()

    def action_cells_left(self) -> None:
        self._shift_cells(-1)

    def action_cells_right(self) -> None:
        self._shift_cells(1)

    def action_open_case(self) -> None:
        case_index = self.case_under_cursor()
        if case_index is not None:
            self.post_message(self.CaseChosen(case_index))

    def on_click(self, event: events.Click) -> None:
        """A click moves the cursor; a click on the cursor row (or a double click) opens it."""
        if event.y < 1:
            return
        row = round(self.scroll_offset.y) + event.y - 1
        if row >= len(self.rows):
            return
        if row == self.cursor_row or event.chain > 1:
            self.cursor_row = row
            self.action_open_case()
        else:
            self.cursor_row = row
