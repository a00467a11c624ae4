"""A span of seconds as both faces show it: a clock reading, ``4:05`` or ``1:02:03``."""

from __future__ import annotations


def clock(seconds: float) -> str:
    """Whole seconds as m:ss, or h:mm:ss from an hour on."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
