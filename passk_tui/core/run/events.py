"""What an evaluation tells its front ends, in the order things happen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.run.attempt_keys import PlannedAttempt


@dataclass(frozen=True, slots=True)
class AttemptStarted:
    """A Run was asked for: the attempt now counts as in flight."""

    attempt: PlannedAttempt


@dataclass(frozen=True, slots=True)
class AttemptRetrying:
    """The target is waiting ``delay`` seconds to resend the same request, because of ``reason``."""

    attempt: PlannedAttempt
    reason: str
    delay: float


@dataclass(frozen=True, slots=True)
class AttemptFinished:
    """An attempt ended and its record is already stored."""

    record: AttemptRecord


@dataclass(frozen=True, slots=True)
class EvaluationFinished:
    """Nothing more will run: ``done`` (all attempts in), ``cancelled`` by the user, or ``failed`` (exit 3)."""

    status: Literal["done", "cancelled", "failed"]
    error: str | None = None
    reason: str | None = None
    """Why it ended as it did, when the status does not say it all: ``budget spent``."""


Event = AttemptStarted | AttemptRetrying | AttemptFinished | EvaluationFinished
