"""Blocking work off the event loop that neither a cancel nor the process's exit waits for."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def in_daemon_thread(work: Callable[[], T]) -> T:
    """``work()`` in a daemon thread of its own, awaited; a cancelled wait leaves it to end alone.

    Unlike ``asyncio.to_thread``, whose pool threads ``asyncio.run`` and interpreter
    exit both join, nothing waits for this thread: ``work`` must bound itself (a
    regex search with a timeout), and its result is dropped if no one is waiting.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def deliver(setter: Callable[[Any], None], value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: no one waits
            loop.call_soon_threadsafe(_settle, future, setter, value)

    def run() -> None:
        try:
            result = work()
        except BaseException as exc:
            deliver(future.set_exception, exc)
        else:
            deliver(future.set_result, result)

    threading.Thread(target=run, name="passk-check", daemon=True).start()
    return await future


def _settle(future: asyncio.Future[Any], setter: Callable[[Any], None], value: Any) -> None:
    """Set the result unless the waiter was cancelled (the future is done then)."""
    if not future.done():
        setter(value)
