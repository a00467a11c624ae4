"""Bounded concurrency over work pulled one item at a time, with clean cancellation.

A fixed set of worker tasks asks one source for its next item, so ten million
attempts cost ``limit`` tasks and nothing planned up front; a source that has
nothing now (``Pause.WAIT``) parks its worker until ``wake()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from passk_tui.core.run.policy import Pause

T = TypeVar("T")


class Pool:
    """Runs ``work`` on what ``source`` gives, at most ``limit`` at once.

    ``stop()`` lets in-flight items finish but starts no more; cancelling the
    task awaiting ``run`` cancels every in-flight item and waits for each to
    clean up, so nothing is left running.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self._stopped = False
        self._changed = asyncio.Event()

    def stop(self) -> None:
        """Start no new items; those in flight carry on."""
        self._stopped = True
        self._changed.set()

    def wake(self) -> None:
        """Something the source depends on changed: parked workers ask it again."""
        self._changed.set()

    async def run(
        self, source: Callable[[], T | Pause], work: Callable[[T], Awaitable[object]]
    ) -> None:
        """Until the source says DONE (or ``stop``), keep ``limit`` workers on its items."""

        async def worker() -> None:
            while not self._stopped:
                item = source()
                if item is Pause.DONE:
                    self._changed.set()  # parked workers learn it too
                    return
                if item is Pause.WAIT:
                    self._changed.clear()
                    await self._changed.wait()
                    continue
                await work(item)

        async with asyncio.TaskGroup() as group:
            for _ in range(self.limit):
                group.create_task(worker())
