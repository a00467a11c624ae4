"""StackTarget against the test stack: planned attempts, a target, a stack config with the key."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.targets.stack import StackTarget
from tests.support.stack_server import StackServer

KEY = "sk-live-VERY-SECRET-0042"
EVALUATION = "ev_test"


def planned(names: Sequence[str], attempts: int, evaluation: str = EVALUATION):
    """Attempts for cases named ``names``; each case's input is its name."""
    cases = [Case(name=name, input=name, check=None) for name in names]
    return [
        PlannedAttempt.of(evaluation, i, case, attempt)
        for attempt in range(1, attempts + 1)
        for i, case in enumerate(cases)
    ]


def target_for(server: StackServer, concurrency: int = 4, **kw) -> StackTarget:
    options = {"key": KEY, "agent": "demo", "version": 1, "evaluation_id": EVALUATION}
    options.update(kw)
    return StackTarget(server.url, concurrency=concurrency, **options)


def with_key(**config) -> dict:
    return {"keys": {KEY: None, "forbidden": frozenset()}, **config}


async def one_attempt(server: StackServer, seconds: float, case: str = "a"):
    """A fresh target's checks, then one attempt of ``case`` under a ``seconds`` deadline: its Turn."""
    target = target_for(server)
    await target.prepare()
    loop = asyncio.get_running_loop()
    try:
        return await target.execute(planned([case], 1)[0], loop.time() + seconds, _no_notice)
    finally:
        await target.aclose()


def _no_notice(reason: str, delay: float) -> None:
    """Retry notices, not asserted on here."""
