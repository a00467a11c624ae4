"""Bounded concurrency with results in plan order and clean cancellation.

A fixed set of worker tasks pulls from one iterator, so 100,000 planned
attempts cost ``limit`` tasks, not 100,000.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Pool:
    """Runs ``work`` over ``items`` with at most ``limit`` in flight.

    ``stop()`` lets in-flight items finish but starts no more; cancelling the
    task awaiting ``run`` cancels every in-flight item and waits for each to
    clean up, so nothing is left running.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self._stopped = False

    def stop(self) -> None:
        """Start no new items; those in flight carry on."""
        self._stopped = True

    async def run(
        self,
        items: Sequence[T],
        work: Callable[[T], Awaitable[R]],
        on_done: Callable[[int, R], None] | None = None,
    ) -> list[R | None]:
        """Results in the order of ``items``; None where an item never started (stopped)."""
        results: list[R | None] = [None] * len(items)
        queue = iter(enumerate(items))

        async def worker() -> None:
            for index, item in queue:
                if self._stopped:
                    return
                result = await work(item)
                results[index] = result
                if on_done is not None:
                    on_done(index, result)

        async with asyncio.TaskGroup() as group:
            for _ in range(min(self.limit, len(items))):
                group.create_task(worker())
        return results
