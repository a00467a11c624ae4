"""A table that draws only the rows on screen (Line API): the Results table at any size.

Textual's DataTable builds, measures and keeps every cell of every row: with 1,000
cases that is 10,000 Rich texts made and measured before the first frame (2.5 s here),
and a cursor move re-renders rows it did not touch (0.13 s a key press). This table is
given its columns (fixed widths: the screen lays them out from the core's text) and a
function from a row's position to its cells; it asks for a row's cells only when the
row comes on screen and keeps the drawn lines in a small cache. So opening, sorting,
filtering and moving cost what the screen shows, not what the evaluation holds.

The header row stays at the top while the rows scroll; Left/Right scroll sideways
when the columns are wider than the screen. Enter (or a click on the cursor row) posts
``RowSelected``; a click on a heading posts ``HeaderSelected``; a cursor move posts
``RowHighlighted``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from passk_tui.tui.widgets.row_cursor import CURSOR_BINDINGS, RowCursor


@dataclass(frozen=True, slots=True)
class TableColumn:
    """A column: its key (for sorting and tests), its heading, its width in cells."""

    key: str
    label: Text
    width: int


#: A row's cells, by its position among the rows shown.
CellSource = Callable[[int], Sequence[Text]]


class LineTable(RowCursor, ScrollView, can_focus=True):
    """Rows of cells under a fixed header, with a row cursor; only visible rows are drawn."""

    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        & > .line-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .line-table--even-row { background: $surface-lighten-1 50%; }
        &:dark > .line-table--even-row { background: $surface-darken-1 40%; }
        & > .line-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .line-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "line-table--header",
        "line-table--even-row",
        "line-table--cursor",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter", "select_cursor", "Open case", tooltip="The case under the cursor: its attempts"
        ),
        *CURSOR_BINDINGS,
        Binding("left", "scroll_left", "Left", show=False),
        Binding("right", "scroll_right", "Right", show=False),
    ]

    cursor_row: reactive[int] = reactive(0)
    """The row under the cursor (a position among the rows shown)."""

    class _RowMessage(Message):
        def __init__(self, table: LineTable, cursor_row: int) -> None:
            super().__init__()
            self.table = table
            self.cursor_row = cursor_row

        @property
        def control(self) -> LineTable:
            return self.table

    class RowSelected(_RowMessage):
        """Enter, or a click on the cursor row: open this row."""

    class RowHighlighted(_RowMessage):
        """The cursor moved to this row (not a subclass of RowSelected: handlers match by MRO)."""

    class HeaderSelected(Message):
        """A click on a column's heading."""

        def __init__(self, table: LineTable, column_key: str) -> None:
            super().__init__()
            self.table = table
            self.column_key = column_key

        @property
        def control(self) -> LineTable:
            return self.table

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns: list[TableColumn] = []
        self.row_count = 0
        self._cells: CellSource = lambda position: ()
        self._row_key: Callable[[int], Hashable] = lambda position: position
        self._lines: LRUCache[tuple[Hashable, ...], Strip] = LRUCache(512)
        self._styles: dict[tuple[str, bool], Style] = {}

    # -- contents ----------------------------------------------------------------------

    def set_rows(
        self,
        columns: Sequence[TableColumn],
        row_count: int,
        cells: CellSource,
        row_key: Callable[[int], Hashable] | None = None,
    ) -> None:
        """Show ``row_count`` rows under ``columns``; ``cells(position)`` is asked on draw.

        ``row_key(position)``, when given, names what a row draws: drawn lines are kept
        by it across calls, so a new sort, filter or a resize redraws only rows not yet
        drawn (without it every call starts afresh)."""
        if row_key is None or columns != self.columns:
            self._lines.clear()
        self.columns = list(columns)
        self.row_count = row_count
        self._cells = cells
        self._row_key = row_key or (lambda position: position)
        width = sum(c.width for c in self.columns)
        self.virtual_size = Size(width, row_count + 1)
        self.cursor_row = max(0, min(self.cursor_row, row_count - 1))
        self.refresh()

    def get_row_at(self, position: int) -> list[Text]:
        """A row's cells (what a test reads)."""
        if not 0 <= position < self.row_count:
            raise IndexError(f"row {position} of {self.row_count}")
        return list(self._cells(position))

    def move_cursor(self, *, row: int) -> None:
        self.cursor_row = row

    # -- drawing -----------------------------------------------------------------------

    def notify_style_update(self) -> None:
        """A theme, CSS or focus change: the cached lines and styles carry old colours."""
        super().notify_style_update()
        self._lines.clear()
        self._styles.clear()

    def _style(self, part: str) -> Style:
        """A part's style (header, even-row, cursor; "" for odd rows) over the widget's own
        colours, once per theme and focus (focus tints the background)."""
        key = (part, self.has_focus)
        cached = self._styles.get(key)
        if cached is None:
            cached = self.rich_style
            if part:
                cached += self.get_component_styles(f"line-table--{part}").rich_style
            self._styles[key] = cached
        return cached

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        scroll_x, scroll_y = self.scroll_offset
        if y == 0:
            key: tuple[Hashable, ...] = ("header", self.has_focus, width, scroll_x)
            part = "header"
            texts: Sequence[Text] | None = [c.label for c in self.columns]
        else:
            position = scroll_y + y - 1
            if position >= self.row_count:
                return Strip.blank(width, self._style(""))
            part = "cursor" if position == self.cursor_row else ("" if position % 2 else "even-row")
            key = (self._row_key(position), part, self.has_focus, width, scroll_x)
            texts = None
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        if texts is None:
            texts = self._cells(position)
        strip = self._strip(texts, self._style(part)).crop_extend(
            scroll_x, scroll_x + width, self._style(part)
        )
        self._lines[key] = strip
        return strip

    def _strip(self, texts: Sequence[Text], base: Style) -> Strip:
        """The cells side by side, each cut or padded to its column, over the row's style."""
        console = self.app.console
        styles: dict[str | Style, Style] = {}
        segments: list[Segment] = []
        for column, text in zip(self.columns, texts, strict=False):
            if not _needs_rich(text, column.width):
                segments += _span_segments(text, base, styles, console)
                continue
            cell = Text(overflow="crop", no_wrap=True, end="")
            cell.append_text(text)
            cell.truncate(column.width, pad=True)
            segments.extend(
                Segment(s.text, base + s.style if s.style else base) for s in cell.render(console)
            )
        return Strip(segments)

    # -- the cursor --------------------------------------------------------------------

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()
        if self.row_count:
            self.post_message(self.RowHighlighted(self, new))

    def row_total(self) -> int:
        return self.row_count

    def action_select_cursor(self) -> None:
        if 0 <= self.cursor_row < self.row_count:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        """A heading sorts; a click moves the cursor, and on the cursor row opens it."""
        if event.y < 1:
            x = event.x + round(self.scroll_offset.x)
            for column in self.columns:
                if x < column.width:
                    self.post_message(self.HeaderSelected(self, column.key))
                    return
                x -= column.width
            return
        position = round(self.scroll_offset.y) + event.y - 1
        if position >= self.row_count:
            return
        if position == self.cursor_row or event.chain > 1:
            self.cursor_row = position
            self.action_select_cursor()
        else:
            self.cursor_row = position


def _needs_rich(text: Text, width: int) -> bool:
    """Whether a cell needs Rich's full rendering: not its column's width, or styled in
    overlapping spans or as a whole (the screens' cells are neither: laid out to width,
    styled run by run)."""
    if text.style or cell_len(text.plain) != width:
        return True
    end = 0
    for span in text.spans:
        if span.start < end:
            return True
        end = span.end
    return False


def _span_segments(
    text: Text, base: Style, styles: dict[str | Style, Style], console: Console
) -> list[Segment]:
    """A cell's runs as segments over ``base`` (7x quicker than ``Text.render`` per row)."""
    plain = text.plain
    segments: list[Segment] = []
    at = 0
    for span in text.spans:
        if span.start > at:
            segments.append(Segment(plain[at : span.start], base))
        style = styles.get(span.style)
        if style is None:
            own = console.get_style(span.style) if isinstance(span.style, str) else span.style
            style = styles[span.style] = base + own
        segments.append(Segment(plain[span.start : span.end], style))
        at = span.end
    if at < len(plain):
        segments.append(Segment(plain[at:], base))
    return segments
