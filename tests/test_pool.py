"""The bounded pool: the cap as the work sees it, plan order, stop and cancellation."""

from __future__ import annotations

import asyncio
import random

import pytest

from passk_tui.core.pool import Pool


async def test_cap_order_and_every_item() -> None:
    in_flight = 0
    peak = 0
    rng = random.Random(7)

    async def work(item: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(rng.uniform(0, 0.004))  # random completion order
        in_flight -= 1
        return item * 10

    finished: list[int] = []
    results = await Pool(7).run(list(range(200)), work, lambda i, r: finished.append(i))
    assert results == [i * 10 for i in range(200)]
    assert peak == 7
    assert sorted(finished) == list(range(200))
    assert finished != list(range(200))  # they really finished out of order


async def test_stop_starts_nothing_new() -> None:
    pool = Pool(2)
    started: list[int] = []

    async def work(item: int) -> int:
        started.append(item)
        if item == 3:
            pool.stop()
        await asyncio.sleep(0.001)
        return item

    results = await pool.run(list(range(20)), work)
    assert len(started) <= 5
    assert results[len(started) :] == [None] * (20 - len(started))


async def test_cancel_leaves_nothing_running() -> None:
    cleaned: list[int] = []
    entered = asyncio.Event()

    async def work(item: int) -> int:
        try:
            entered.set()
            await asyncio.sleep(60)
        finally:
            cleaned.append(item)
        return item

    before = asyncio.all_tasks()
    runner = asyncio.create_task(Pool(3).run(list(range(10)), work))
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
