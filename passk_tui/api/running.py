"""How the API runs an evaluation: to its end, stopped by Ctrl-C as the CLI's is, and from
sync code (``evaluate`` is ``evaluate_async`` waited for).

The sync call runs it on a loop of its own in a daemon thread (a notebook's cell thread runs a
loop already, and a loop cannot wait on itself), and the caller's thread only waits. Ctrl-C
(the notebook's "interrupt") stops the evaluation as it stops the CLI's: its task is
cancelled, the attempts in flight are withdrawn and stored as such, and the KeyboardInterrupt
goes on once it is over. When the evaluation is over its loop is closed after a short grace,
whatever is left on it (an agent's coroutine that ignored its cancellation), so the call
returns and the process can exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import warnings
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from passk_tui.core.run.engine import Interleaved, Status

P = ParamSpec("P")
R = TypeVar("R")


#: Seconds the tasks still on a finished evaluation's loop get to end once cancelled.
GRACE = 1.0


def blocking(coroutine_function: Callable[P, Awaitable[R]]) -> Callable[P, R]:
    """The same call, waited for (run to its end on a loop in a thread of its own)."""

    @functools.wraps(coroutine_function)
    def wait(*args: P.args, **kwargs: P.kwargs) -> R:
        return run_to_end(lambda: coroutine_function(*args, **kwargs))

    return wait


def run_to_end(call: Callable[[], Awaitable[R]]) -> R:
    """Run ``call()`` on a new loop in a new daemon thread; a KeyboardInterrupt here cancels it
    there, and goes on once the evaluation has stored its end."""
    loop = asyncio.new_event_loop()
    outcome: list[R] = []
    failure: list[BaseException] = []
    started, ended = threading.Event(), threading.Event()
    task: list[asyncio.Future[R]] = []

    async def main() -> R:
        return await call()

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            task.append(loop.create_task(main()))
            started.set()
            outcome.append(loop.run_until_complete(task[0]))
        except BaseException as exc:
            failure.append(exc)
        finally:
            started.set()
            _close(loop)
            ended.set()

    # Waited for on an Event, not Thread.join: a join that Ctrl-C interrupts may take the
    # thread for ended (Python 3.11), and the evaluation's end would not be waited for.
    threading.Thread(target=run, name="passk-evaluate", daemon=True).start()
    try:
        ended.wait()
    except KeyboardInterrupt:
        started.wait()
        if task:
            with contextlib.suppress(RuntimeError):  # closed meanwhile: it is over already
                loop.call_soon_threadsafe(task[0].cancel)
        ended.wait()
        raise
    if failure:
        raise failure[0]
    return outcome[0]


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """Close a finished evaluation's loop: what is left on it is cancelled and given GRACE to
    end (``asyncio.run`` would wait for it for ever); what runs on is closed, with a warning."""
    try:
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.wait(left, timeout=GRACE))
        stuck = [task for task in left if not task.done()]
        for task in stuck:
            _drop(task)
        if stuck:
            warnings.warn(
                f"{len(stuck)} of the agent's coroutines ignored their cancellation at the "
                "deadline; they were closed when the evaluation returned",
                RuntimeWarning,
                stacklevel=1,
            )
        with contextlib.suppress(TimeoutError):
            loop.run_until_complete(asyncio.wait_for(loop.shutdown_asyncgens(), GRACE))
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _drop(task: asyncio.Task[object]) -> None:
    """End a task that will not end: its coroutine closed (its ``finally`` blocks run), and
    asyncio's "destroyed but pending" log left out (the warning above says it once)."""
    with contextlib.suppress(RuntimeError):  # it ignored GeneratorExit too: dropped as it is
        task.get_coro().close()
    task._log_destroy_pending = False  # type: ignore[attr-defined]


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
