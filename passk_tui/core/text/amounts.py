"""Counts in words, as both faces write them: ``1 case``, ``2 cases``, ``1 retry``, ``3 retries``.

One place for the plural, so no screen says "1 cases".
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun plural (``noun + "s"`` unless given) when count != 1."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def retries_text(retries: int) -> str:
    """``1 retry``, ``3 retries``: what a flaky target cost an attempt, in words."""
    return counted(retries, "retry", "retries")


def clock(seconds: float) -> str:
    """Whole seconds as m:ss, or h:mm:ss from an hour on."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
