"""The bounded pool: the cap as the work sees it, every item once, waiting, stop and cancellation."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import pytest

from passk_tui.core.run.policy import Pause
from passk_tui.core.run.pool import Pool


def source_of(items: Iterator[int]):
    return lambda: next(items, Pause.DONE)


async def test_cap_and_every_item() -> None:
    in_flight = 0
    peak = 0
    rng = random.Random(7)
    finished: list[int] = []

    async def work(item: int) -> None:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(rng.uniform(0, 0.004))  # random completion order
        in_flight -= 1
        finished.append(item)

    await Pool(7).run(source_of(iter(range(200))), work)
    assert peak == 7
    assert sorted(finished) == list(range(200))
    assert finished != list(range(200))  # they really finished out of order


async def test_wait_parks_workers_until_woken() -> None:
    """A source with nothing now parks its workers; ``wake`` sends them back to it."""
    pool = Pool(4)
    queue: list[int] = [0]
    in_flight = 0
    done: list[int] = []

    def source() -> int | Pause:
        if queue:
            return queue.pop()
        return Pause.WAIT if in_flight or len(done) < 10 else Pause.DONE

    async def work(item: int) -> None:
        nonlocal in_flight
        in_flight += 1
        await asyncio.sleep(0.001)
        in_flight -= 1
        done.append(item)
        if item < 9:
            queue.append(item + 1)  # each item makes the next one available
        pool.wake()

    await asyncio.wait_for(pool.run(source, work), 5)
    assert done == list(range(10))


async def test_stop_starts_nothing_new() -> None:
    pool = Pool(2)
    started: list[int] = []

    async def work(item: int) -> None:
        started.append(item)
        if item == 3:
            pool.stop()
        await asyncio.sleep(0.001)

    await pool.run(source_of(iter(range(20))), work)
    assert 4 <= len(started) <= 5


async def test_stop_releases_parked_workers() -> None:
    pool = Pool(3)
    runner = asyncio.create_task(pool.run(lambda: Pause.WAIT, lambda item: asyncio.sleep(0)))
    await asyncio.sleep(0.01)
    pool.stop()
    await asyncio.wait_for(runner, 5)


async def test_cancel_leaves_nothing_running() -> None:
    cleaned: list[int] = []
    entered = asyncio.Event()

    async def work(item: int) -> None:
        try:
            entered.set()
            await asyncio.sleep(60)
        finally:
            cleaned.append(item)

    before = asyncio.all_tasks()
    runner = asyncio.create_task(Pool(3).run(source_of(iter(range(10))), work))
    await entered.wait()
    await asyncio.sleep(0.01)
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await runner
    assert sorted(cleaned) == [0, 1, 2]
    assert asyncio.all_tasks() == before


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Pool(0)
