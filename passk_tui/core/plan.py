"""Cases x attempts -> planned attempts, each with its own idempotency key."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

from passk_tui.core.cases import Case

_KEY_LIMIT = 255


def new_evaluation_id() -> str:
    """A fresh id that sorts by creation time: ``ev_`` + ms timestamp + randomness."""
    return f"ev_{int(time.time() * 1000):012x}{secrets.token_hex(5)}"


def idempotency_key(evaluation_id: str, case: str, attempt: int) -> str:
    """The key for one attempt: stable for it, distinct from every other attempt's.

    Readable (``<ev>/c/<case>/<n>``) when the case name is visible ASCII and the
    key fits in 255 characters; otherwise the name is hashed (``<ev>/h/<sha>/<n>``).
    The ``c``/``h`` marker keeps the two forms from ever colliding, and the
    attempt number is always the part after the last ``/``, so the mapping is
    injective whatever the name holds.
    """
    readable = f"{evaluation_id}/c/{case}/{attempt}"
    if len(readable) <= _KEY_LIMIT and all(0x21 <= ord(ch) <= 0x7E for ch in case):
        return readable
    digest = hashlib.sha256(case.encode("utf-8")).hexdigest()
    return f"{evaluation_id}/h/{digest}/{attempt}"


@dataclass(frozen=True, slots=True)
class PlannedAttempt:
    """One attempt to run: which case, which attempt number (1..n), and its key."""

    index: int
    case_index: int
    case: Case
    attempt: int
    key: str


def plan_attempts(
    evaluation_id: str,
    cases: Sequence[Case],
    attempts: int,
    done: frozenset[tuple[int, int]] = frozenset(),
) -> list[PlannedAttempt]:
    """Every (case, attempt) not in ``done``, attempt-major so every case starts early.

    Attempt-major order (all cases' attempt 1, then attempt 2, ...) makes the
    live grid fill evenly and gives every case a first figure soon.
    ``done`` holds (case_index, attempt) pairs already recorded, for resume.
    """
    planned: list[PlannedAttempt] = []
    for attempt in range(1, attempts + 1):
        for case_index, case in enumerate(cases):
            if (case_index, attempt) in done:
                continue
            key = idempotency_key(evaluation_id, case.name, attempt)
            planned.append(PlannedAttempt(len(planned), case_index, case, attempt, key))
    return planned
