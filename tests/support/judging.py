"""Judging an answer with a compiled check from synchronous tests."""

from __future__ import annotations

import asyncio
from math import log, log1p
from typing import Any

from scipy.optimize import brentq
from scipy.special import betaln

from passk_tui.core.attempt import Verdict
from passk_tui.core.checks.kinds import Check
from passk_tui.core.transcript import Transcript


def verdict_of(
    check: Check, output: Any, seconds: float = 30.0, transcript: Transcript | None = None
) -> Verdict:
    """The check's verdict on one answer (and its attempt's transcript), the attempt's
    deadline ``seconds`` away."""

    async def judged() -> Verdict:
        deadline = asyncio.get_running_loop().time() + seconds
        return await check.judge(output, deadline, transcript)

    return asyncio.run(judged())


def scipy_running(order: bytes, level: float) -> tuple[float, float]:
    """The running intersection, naively: scipy's interval at every prefix, intersected in
    turn, one that would empty it skipped (as ``core.sequences`` says it does)."""
    low, high = 0.0, 1.0
    for m in range(1, len(order) + 1):
        step_low, step_high = _scipy_cs(sum(order[:m]), m, level)
        if max(low, step_low) <= min(high, step_high):
            low, high = max(low, step_low), min(high, step_high)
    return low, high


def _scipy_cs(c: int, n: int, level: float) -> tuple[float, float]:
    """{p : M_n(p) <= 1/(1-level)} by Brent's method on each side of c/n."""
    threshold = -log(1.0 - level)

    def excess(p: float) -> float:
        return _scipy_log_ratio(p, c, n) - threshold

    centre = c / n
    low = 0.0 if c == 0 else brentq(excess, 1e-300, centre, xtol=1e-15, rtol=1e-15)
    high = 1.0 if c == n else brentq(excess, centre, 1.0 - 1e-16, xtol=1e-15, rtol=1e-15)
    return low, high


def _scipy_log_ratio(p: float, c: int, n: int) -> float:
    """log M_n(p) written again from the definition, with scipy's log beta function."""
    log_lik = (c * log(p) if c else 0.0) + ((n - c) * log1p(-p) if n - c else 0.0)
    return float(betaln(JEFFREYS + c, JEFFREYS + n - c) - betaln(JEFFREYS, JEFFREYS)) - log_lik


JEFFREYS = 0.5
