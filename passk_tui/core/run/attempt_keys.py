"""Attempts and their idempotency keys, and the bound on how many one evaluation may plan."""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

from passk_tui.core.errors import InputError
from passk_tui.core.run.cases import Case

_KEY_LIMIT = 255


def new_evaluation_id() -> str:
    """A fresh id that sorts by creation time: ``ev_`` + ms timestamp + randomness."""
    return f"ev_{int(time.time() * 1000):012x}{secrets.token_hex(5)}"


#: The most attempts one evaluation may plan (cases x attempts, or x max attempts): beyond it
#: a run would take days at any realistic rate and its store gigabytes; refused as bad input.
MAX_PLANNED = 10_000_000


def idempotency_key(evaluation_id: str, case: str, attempt: int, retake: int = 0) -> str:
    """The key for one attempt (and retake): stable for it, distinct from every other's.

    Readable (``<ev>/c/<case>/<n>``) when the case name is visible ASCII and the
    key fits in 255 characters; otherwise the name is hashed (``<ev>/h/<sha>/<n>``).
    The ``c``/``h`` marker keeps the two forms from ever colliding, and the
    attempt number is always the part after the last ``/``, so the mapping is
    injective whatever the name holds. A retake (an attempt withdrawn and run
    again) appends ``/r<retake>``: a last part that is not a number, so it can
    never be read as an attempt; retake 0 is the attempt's first key, unchanged.
    """
    tail = f"/{attempt}" if retake == 0 else f"/{attempt}/r{retake}"
    readable = f"{evaluation_id}/c/{case}{tail}"
    if len(readable) <= _KEY_LIMIT and all(0x21 <= ord(ch) <= 0x7E for ch in case):
        return readable
    digest = hashlib.sha256(case.encode("utf-8")).hexdigest()
    return f"{evaluation_id}/h/{digest}{tail}"


@dataclass(frozen=True, slots=True)
class PlannedAttempt:
    """One attempt to run: which case, which attempt number (1..n), which retake, and its key."""

    case_index: int
    case: Case
    attempt: int
    key: str
    retake: int = 0

    @classmethod
    def of(
        cls, evaluation_id: str, case_index: int, case: Case, attempt: int, retake: int = 0
    ) -> PlannedAttempt:
        """The attempt with its key derived from (evaluation, case, attempt, retake)."""
        key = idempotency_key(evaluation_id, case.name, attempt, retake)
        return cls(case_index, case, attempt, key, retake)


def check_planned_size(case_count: int, attempts: int, flag: str = "--attempts") -> None:
    """InputError when ``case_count`` x ``attempts`` is more than MAX_PLANNED."""
    planned = case_count * attempts
    if planned > MAX_PLANNED:
        raise InputError(
            f"{flag} {attempts}: {case_count} cases x {attempts} attempts is {planned:,} "
            f"attempts, more than the {MAX_PLANNED:,} one evaluation may plan"
        )
