"""Judging an answer with a compiled check from synchronous tests."""

from __future__ import annotations

import asyncio
from typing import Any

from passk_tui.core.checks.kinds import Check
from passk_tui.core.run.attempt import Verdict


def verdict_of(check: Check, output: Any, seconds: float = 30.0) -> Verdict:
    """The check's verdict on one answer, the attempt's deadline ``seconds`` away."""

    async def judged() -> Verdict:
        return await check.judge(output, asyncio.get_running_loop().time() + seconds)

    return asyncio.run(judged())
