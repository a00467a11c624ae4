"""Cyclic-GC thresholds for the length of an evaluation, shared by both faces.

An evaluation keeps every finished attempt, so with the defaults (700, 10, 10)
the collector rescans an ever larger heap: 4,839 collections and 3.3 s of a 40 s
headless run at 100,000 attempts. The garbage of a run is almost all freed by
reference counting; these thresholds leave 7 collections, 0.09 s.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

GC_THRESHOLDS = (50_000, 20, 20)


@contextmanager
def relaxed_gc() -> Iterator[None]:
    """Collect cycles rarely while the block runs; the previous thresholds come back after."""
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)
