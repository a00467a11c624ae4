"""A row cursor under a one-line header: the moves the run grid and the tables share.

The widget (a ScrollView, after this in its bases: its ``scroll_to`` is used) has a
``cursor_row`` reactive and says how many rows it shows; this moves the cursor by a row, a page or to either end, and scrolls so that
the cursor's row stays on screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.binding import Binding

if TYPE_CHECKING:
    from textual.geometry import Offset, Region

#: The keys of the moves below, for the widget's BINDINGS (not shown in the footer).
CURSOR_BINDINGS = [
    Binding("up", "cursor_up", "Up", show=False),
    Binding("down", "cursor_down", "Down", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
    Binding("home", "first_row", "First", show=False),
    Binding("end", "last_row", "Last", show=False),
]


class RowCursor:
    """Up, Down, Page Up/Down, Home and End over rows, the header line kept on top."""

    cursor_row: int
    scroll_offset: Offset
    scrollable_content_region: Region

    if TYPE_CHECKING:  # the ScrollView's, after this in the widget's bases: declared, not defined

        def scroll_to(
            self, x: float | None = None, y: float | None = None, **options: Any
        ) -> None: ...

    def row_total(self) -> int:
        """How many rows the cursor moves over."""
        raise NotImplementedError

    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        top = round(self.scroll_offset.y)
        rows = self._visible_rows()
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + rows:
            self.scroll_to(y=self.cursor_row - rows + 1, animate=False)

    def _move(self, row: int) -> None:
        total = self.row_total()
        if total:
            self.cursor_row = max(0, min(total - 1, row))

    def action_cursor_up(self) -> None:
        self._move(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self._move(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self._move(self.cursor_row - self._visible_rows())

    def action_page_down(self) -> None:
        self._move(self.cursor_row + self._visible_rows())

    def action_first_row(self) -> None:
        self._move(0)

    def action_last_row(self) -> None:
        self._move(self.row_total() - 1)
