"""A run started from flags begins before the app is built: its first Runs are out while
Textual is imported.

The app costs a fixed sixth of a second of CPU before its first frame (Textual's import,
its styles, the Run screen), and at 200 in flight with 50 ms Turns that came before the
first Run: a seventh of such a run's wall time. So ``run_app`` starts the engine first, in
the loop the app then runs in; once the first Runs are under way (or ``FIRST_RUNS_WAIT``
has passed, so that a slow stack never holds the app back), it imports and builds the
app while those Turns are out, and the app's run control takes the running evaluation
over (``RunController.launch``). Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio

from passk_tui.core.run.engine import Evaluation, Interleaved, Status

#: The longest the app waits for the first Runs to go out before it is built anyway (s).
FIRST_RUNS_WAIT = 0.1
#: How often the first Runs are looked at meanwhile (s).
_LOOK_EVERY = 0.002


async def start_early(evaluation: Evaluation) -> asyncio.Task[Status]:
    """Start ``evaluation``'s run; return it running once its first Runs are out (every
    slot of its concurrency taken, or nothing more to start), it ended, or the wait is over."""
    running = asyncio.ensure_future(evaluation.run())
    progress = evaluation.progress
    loop = asyncio.get_running_loop()
    give_up = loop.time() + FIRST_RUNS_WAIT
    while not running.done() and loop.time() < give_up:
        left = progress.total - progress.finished
        if progress.in_flight >= min(evaluation.settings.concurrency, left):
            break
        await asyncio.sleep(_LOOK_EVERY)
    return running


def stop_unshown(
    loop: asyncio.AbstractEventLoop, evaluation: Evaluation, running: asyncio.Task[Status]
) -> None:
    """The app ended with the run still going, never taken over (the app could not start):
    withdraw its Runs in flight as a cancel does, let it end, close its target, judges and
    simulated users (as the app's run controller closes them)."""
    if running.done():
        return
    evaluation.cancel()
    loop.run_until_complete(asyncio.wait((running,)))
    loop.run_until_complete(Interleaved([evaluation]).aclose())
