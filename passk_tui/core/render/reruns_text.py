"""How many attempts ran again because their Ray node died: said once, after the table."""

from __future__ import annotations

from collections.abc import Iterable

from passk_tui.core.attempt import AttemptRecord


def reruns(records: Iterable[AttemptRecord]) -> int:
    """Runs made again after a node died: an attempt on a Ray node counts its retries so."""
    return sum(record.retries for record in records if record.node is not None)


def reruns_said(records: Iterable[AttemptRecord]) -> str | None:
    """``reruns: 2 attempts run again on another node after theirs died`` or None for none."""
    count = reruns(records)
    if not count:
        return None
    runs = "attempt" if count == 1 else "attempts"
    return f"reruns: {count} {runs} run again on another node after theirs died (each counted once)"
