"""The keys line at the bottom of every screen: one widget drawing one line.

Textual's Footer mounts a widget per key and composes them again whenever the
screen's bindings change; each key's class toggle restyles it. Across the Run
and Results screens of a short run that was a third of a second of CPU, paid
by every evaluation the app shows. This draws the same line (the key, bold in
the footer's key colour, then what it does; a key the screen disables now
dimmed; the command palette's key at the right) from the screen's active
bindings, repaints it when they change, and turns a click into the key press.

The bindings shown come first, then every other action named in words that does something
now, in the screen's order: what does not fit is left out whole, never cut, the last
first and help's last of all (it lists every key of the screen; the palette names every
action).
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.strip import Strip
from textual.widget import Widget

#: Between two keys (as Textual's compact footer spaces them).
_GAP = " "
#: Before the command palette's key, at the right.
_DIVIDER = "▏"
#: The action kept when keys must go: it lists all of them.
_KEPT_LAST = "help"

Entry = tuple[str, str, str, bool]
"""A key on the line: (key, shown key, description, enabled)."""


def _width(entries: list[Entry]) -> int:
    """Cells the entries take on the line, gaps included."""
    cells = sum(
        cell_len(display) + 1 + cell_len(description) for _, display, description, _ in entries
    )
    return cells + cell_len(_GAP) * max(0, len(entries) - 1)


def fitting(entries: list[Entry], kept_last: str | None, room: int) -> list[Entry]:
    """The entries that fit in ``room`` cells, whole and in order: the last go first, the
    entry whose key is ``kept_last`` only when nothing else is left."""
    kept = list(entries)
    while kept and _width(kept) > room:
        others = [i for i, entry in enumerate(kept) if entry[0] != kept_last]
        del kept[others[-1] if others else -1]
    return kept


class KeyBar(Widget):
    """The screen's shown key bindings on one line; a click presses the key."""

    ALLOW_SELECT = False

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
        & > .key-bar--description { color: $footer-description-foreground; }
        & > .key-bar--divider { color: $foreground 20%; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-bar--key",
        "key-bar--description",
        "key-bar--divider",
    }

    def __init__(self) -> None:
        super().__init__()
        #: Each drawn key's cells on the line: (start, end, key, enabled).
        self._spans: list[tuple[int, int, str, bool]] = []
        #: The key of help's binding when it is on the line (kept when others must go).
        self._kept_last: str | None = None
        #: What the strip was drawn from: (keys, palette's key, width, theme).
        self._drawn: tuple[object, ...] | None = None
        self._strip = Strip([])

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, lambda screen: self.refresh())

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _keys(self) -> tuple[list[Entry], Entry | None]:
        """(key, shown key, description, enabled) of each shown binding, and the palette's."""
        app = self.app
        active = self.screen.active_bindings
        #: Each action's entry, in order; an action bound to several keys shows its shortest
        #: (q rather than Ctrl+Q where q works: where it would be typed, it is not active).
        entries: dict[str, Entry] = {}
        first: set[str] = set()
        # The shown keys first, then, where there is room, every other action named in words
        # (those doing something now): a wide terminal shows the views behind them too.
        for shown_first in (True, False):
            for _, binding, enabled, _ in active.values():
                if binding.action == "command_palette" or shown_first != binding.show:
                    continue
                if not (binding.show or (binding.tooltip and enabled)):
                    continue
                entry = (binding.key, app.get_key_display(binding), binding.description, enabled)
                known = entries.get(binding.action)
                if known is not None and (
                    shown_first
                    or binding.action in first
                    or cell_len(known[1]) <= cell_len(entry[1])
                ):
                    continue
                entries[binding.action] = entry
            if shown_first:
                first = set(entries)
        shown = list(entries.values())
        self._kept_last = entries[_KEPT_LAST][0] if _KEPT_LAST in entries else None
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _, binding, enabled, _ = active[app.COMMAND_PALETTE_BINDING]
            palette = (binding.key, app.get_key_display(binding), binding.description, enabled)
        return shown, palette

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y:
            return Strip.blank(width, self.rich_style)
        shown, palette = self._keys()
        drawn = (tuple(shown), palette, width, self.app.theme)
        if drawn != self._drawn:
            self._drawn = drawn
            self._strip = self._draw(shown, palette, width)
        return self._strip

    def _draw(
        self,
        shown: list[Entry],
        palette: Entry | None,
        width: int,
    ) -> Strip:
        base = self.rich_style
        styles = (
            base + self.get_component_rich_style("key-bar--key", partial=True),
            base + self.get_component_rich_style("key-bar--description", partial=True),
        )
        self._spans = []
        room = width
        if palette is not None:
            room -= cell_len(_DIVIDER) + cell_len(palette[1]) + 1 + cell_len(palette[2])
        room = max(0, room)
        left: list[Segment] = []
        at = 0
        for index, entry in enumerate(fitting(shown, self._kept_last, room)):
            at = self._add(left, entry, at, _GAP if index else "", styles, base)
        strip = Strip(left).crop_extend(0, room, base)
        if palette is not None:
            divider = base + self.get_component_rich_style("key-bar--divider", partial=True)
            right = [Segment(_DIVIDER, divider)]
            self._add(right, palette, room + cell_len(_DIVIDER), "", styles, base)
            strip = Strip([*strip, *right])
        return strip.crop_extend(0, width, base)

    def _add(
        self,
        segments: list[Segment],
        entry: Entry,
        at: int,
        lead: str,
        styles: tuple[Style, Style],
        base: Style,
    ) -> int:
        """One key and what it does at cell ``at`` (after ``lead``); the cell after it."""
        key, display, description, enabled = entry
        if lead:
            segments.append(Segment(lead, base))
            at += cell_len(lead)
        start = at
        # The space rides at the end of the key's run: a run that starts with spaces loses
        # them in SVG viewers outside browsers (see widgets/line_text.py).
        for text, style in zip((f"{display} ", description), styles, strict=True):
            segments.append(Segment(text, style if enabled else style + Style(dim=True)))
            at += cell_len(text)
        self._spans.append((start, at, key, enabled))
        return at

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """The key under the pointer, pressed (a bell for one the screen disables now)."""
        for start, end, key, enabled in self._spans:
            if start <= event.x < end:
                if enabled:
                    self.app.simulate_key(key)
                else:
                    self.app.bell()
                return
