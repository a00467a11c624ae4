"""When an adaptive case has had enough attempts, and why: the stop rules and their reasons.

The adaptive policy asks its rule after every finished attempt of a case
(``rule(order)``, its outcomes by attempt number, 1 a pass, 0 not) and stops
sampling the case when the rule names a reason. With ``--require X`` the case
is decided once its pass@k interval lies wholly on one side of X (the
confident gate's own test); without, once its pass@1 interval is at most
``--precision`` wide. The interval is the anytime-valid one, the running
intersection of the confidence sequence (``core.stats.rates.sequences``), so stopping the
moment a case is decided keeps its chance of a wrong verdict under 1-C. A case
that reaches the cap undecided is the policy's to report, in the same words
(``capped_reason``).

The promise assumes the counts at each look are of attempts chosen without
regard to their outcomes. With attempts in flight, count the longest run of
attempt numbers 1..m that have all finished, not whichever finished first:
if failures are slower than passes, the first to finish over-represent passes.
Attempts still in flight when a case is decided finish and count; the interval
at the larger n is the intersection with one more interval in, inside the one
the stop saw, so the gate reads the verdict the reason recorded.

A reason is stored and shown as text (``decided pass at 14``, ``decided fail
at 9``, ``precise at 23``, ``capped at 40 undecided``) and read back by
``StopReason.parse``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Protocol, cast

from passk_tui.core.stats.rates.intervals import (
    DEFAULT_CONFIDENCE,
    IntervalMethod,
    case_intervals,
    gate_verdict,
)
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE

#: ``--precision``'s default: a pass@1 interval at most this wide is precise enough.
DEFAULT_PRECISION = 0.2

StopKind = Literal["decided pass", "decided fail", "precise", "capped"]

_REASON = re.compile(r"(decided pass|decided fail|precise|capped) at ([0-9]+)( undecided)?")


@dataclass(frozen=True, slots=True)
class StopReason:
    """Why a case stopped getting attempts (``kind``), and its number of attempts then (``n``)."""

    kind: StopKind
    n: int

    @property
    def decided(self) -> bool:
        """Whether the case settled its question; a capped case is still undecided."""
        return self.kind != "capped"

    def __str__(self) -> str:
        if self.kind == "capped":
            return f"capped at {self.n} undecided"
        return f"{self.kind} at {self.n}"

    @classmethod
    def parse(cls, text: str) -> StopReason:
        """The reason a stored text names; ValueError (with the text) when it names none."""
        found = _REASON.fullmatch(text.strip())
        if found is None or (found[1] == "capped") != (found[3] is not None):
            raise ValueError(f"not a stop reason: {text!r}")
        return cls(cast(StopKind, found[1]), int(found[2]))


def capped_reason(n: int) -> str:
    """What the policy records for a case that reached the cap of ``n`` attempts undecided."""
    return str(StopReason("capped", n))


class StopRule(Protocol):
    """The policy's question after each finished attempt: a reason to stop, or None to go on."""

    def __call__(self, order: bytes) -> str | None: ...


@dataclass(frozen=True, slots=True)
class GateRule:
    """Decided once the pass@k interval lies wholly at or above X (pass) or wholly below (fail)."""

    require: Fraction
    k: int
    confidence: float = DEFAULT_CONFIDENCE
    method: IntervalMethod = CONFIDENCE_SEQUENCE

    def reason(self, order: bytes) -> StopReason | None:
        """The structured reason; undecided below k attempts, where pass@k is not shown either."""
        n = len(order)
        if n < self.k:
            return None
        shown = case_intervals(order.count(1), n, self.k, self.confidence, self.method, order)
        pass_at_k = shown.pass_at_k
        verdict = gate_verdict(pass_at_k, self.require)
        if verdict == "undecided":
            return None
        return StopReason("decided pass" if verdict == "pass" else "decided fail", n)

    def __call__(self, order: bytes) -> str | None:
        return _text(self.reason(order))


@dataclass(frozen=True, slots=True)
class PrecisionRule:
    """Precise once the pass@1 interval is at most ``width`` wide."""

    width: float = DEFAULT_PRECISION
    confidence: float = DEFAULT_CONFIDENCE
    method: IntervalMethod = CONFIDENCE_SEQUENCE

    def reason(self, order: bytes) -> StopReason | None:
        """The structured reason, or None while the interval is wider than ``width``."""
        n = len(order)
        if n == 0 or self.method.rate(order.count(1), n, self.confidence, order).width > self.width:
            return None
        return StopReason("precise", n)

    def __call__(self, order: bytes) -> str | None:
        return _text(self.reason(order))


def stop_rule(
    require: Fraction | None,
    k: int,
    precision: float = DEFAULT_PRECISION,
    confidence: float = DEFAULT_CONFIDENCE,
) -> GateRule | PrecisionRule:
    """The adaptive stop rule: the gate's with ``--require``, else ``--precision``'s."""
    if require is not None:
        return GateRule(require, k, confidence)
    return PrecisionRule(precision, confidence)


def _text(reason: StopReason | None) -> str | None:
    return None if reason is None else str(reason)
