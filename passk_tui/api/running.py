"""How the API runs an evaluation: to its end, stopped by Ctrl-C as the CLI's is, and from
sync code (``evaluate`` is ``evaluate_async`` waited for).

A notebook runs an event loop in the thread that runs its cells, and a loop cannot wait on
itself: there the call runs on a loop of its own in a second thread. Ctrl-C (the notebook's
"interrupt") stops the evaluation as it stops the CLI's: its task is cancelled, the attempts
in flight are withdrawn and stored as such, and the KeyboardInterrupt goes on once it is over.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from passk_tui.core.run.engine import Interleaved, Status

P = ParamSpec("P")
R = TypeVar("R")


def blocking(coroutine_function: Callable[P, Awaitable[R]]) -> Callable[P, R]:
    """The same call, waited for (``asyncio.run``, or a thread of its own inside a loop)."""

    @functools.wraps(coroutine_function)
    def wait(*args: P.args, **kwargs: P.kwargs) -> R:
        async def call() -> R:
            return await coroutine_function(*args, **kwargs)

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(call())  # Ctrl-C cancels its task: see evaluate_async
        return _in_a_thread(call)

    return wait


def _in_a_thread(call: Callable[[], Awaitable[R]]) -> R:
    """Run ``call()`` on a new loop in a new thread; a KeyboardInterrupt here cancels it there."""
    loop = asyncio.new_event_loop()
    outcome: list[R] = []
    failure: list[BaseException] = []
    started = threading.Event()
    task: list[asyncio.Future[R]] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            task.append(loop.create_task(call()))  # type: ignore[arg-type]
            started.set()
            outcome.append(loop.run_until_complete(task[0]))
        except BaseException as exc:
            failure.append(exc)
        finally:
            started.set()
            loop.close()

    thread = threading.Thread(target=run, name="passk-evaluate", daemon=True)
    thread.start()
    try:
        thread.join()
    except KeyboardInterrupt:
        started.wait()
        if task:
            loop.call_soon_threadsafe(task[0].cancel)
        thread.join()
        raise
    if failure:
        raise failure[0]
    return outcome[0]


async def run_stoppable(running: Interleaved) -> list[Status]:
    """Run the evaluations to their end (how each ended); cancelled (Ctrl-C), withdraw the
    attempts in flight as the CLI does, let that be stored, then let the cancellation go on."""
    task = asyncio.ensure_future(running.run())
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        running.cancel()
        await asyncio.wait((task,))
        raise
    finally:
        await running.aclose()
