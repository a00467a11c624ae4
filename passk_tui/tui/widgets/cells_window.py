"""Which attempts the grid's cells show when a row does not fit: a window that follows the run.

At 80 columns a case with 100 attempts shows 8 of them. A window that stays at
the first 8 shows nothing moving while the run is at attempt 60; this one keeps
to the frontier (the furthest attempt begun in any case) while the run is live,
until the user moves it off with Left; Right back to the frontier follows again.
A stored evaluation opens at its first attempts.
"""

from __future__ import annotations

from collections.abc import Callable

from passk_tui.core.reading.vocabulary import Progress


class CellsWindow:
    """The first attempt shown (0-based), moved by the user or by the frontier."""

    def __init__(self, progress: Progress, live: Callable[[], bool]) -> None:
        self.progress = progress
        self._live = live
        #: Where the user put the window (0-based).
        self.first = 0
        self.following = True
        #: Where following last put it, kept once the run ends.
        self._followed: int | None = None
        self._longest = (-1, 0)
        self._frontier = (-1, 0)

    def longest(self) -> int:
        """The most attempts any case has (rows may differ); worked out once per change."""
        version = self.progress.version
        if self._longest[0] != version:
            self._longest = (version, max((len(c) for c in self.progress.cells), default=0))
        return self._longest[1]

    def frontier(self) -> int:
        """The furthest attempt begun (running or finished) in any case."""
        version = self.progress.version
        if self._frontier[0] != version:
            furthest = max((len(row.rstrip(b"\0")) for row in self.progress.cells), default=0)
            self._frontier = (version, furthest)
        return self._frontier[1]

    def shown(self, per_window: int) -> tuple[int, int]:
        """The attempts in the window: (first, last) 1-based, inclusive."""
        longest = self.longest()
        first = self.first
        if self.following and self._live():
            first = self._followed = self.frontier() - per_window
        elif self.following and self._followed is not None:
            first = self._followed
        first = max(0, min(first, longest - per_window))
        return first + 1, min(longest, first + per_window)

    def shift(self, direction: int, per_window: int) -> None:
        """Half a window earlier (-1) or later (1); off the frontier it stays put."""
        first, last = self.shown(per_window)
        shown = last - first + 1
        start = first - 1 + direction * max(1, shown // 2)
        self.first = max(0, min(start, max(0, self.longest() - shown)))
        self.following = self.first + shown >= self.frontier()
        self._followed = None
