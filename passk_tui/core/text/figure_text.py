"""How a figure, an interval, a level and a gate are written, the same on every face.

Words of numbers only, so they sit at the bottom of core beside ``decimals``: the
statistics' own lines (the gate's verdict, an agreement's label) use them as much as
the faces do, and a face names a figure without reaching into ``core.stats``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Protocol

from passk_tui.core.text.decimals import fixed

#: How an undefined figure is written everywhere outside the app.
UNDEFINED = "-"


class Ends(Protocol):
    """A closed range of floats (an ``Interval``, an odds ratio's range)."""

    @property
    def low(self) -> float: ...

    @property
    def high(self) -> float: ...


@lru_cache(maxsize=65536)
def two_decimals(value: Fraction | float | None) -> str:
    """How every figure is shown (half up on the exact value); an undefined one (None) is ``-``.
    Cached: a table of 10,000 cases shows a handful of distinct figures (equal values, a
    Fraction and a float alike, have the same digits)."""
    return UNDEFINED if value is None else fixed(value)


def yes_no(value: bool | None) -> str:
    """How "all passed" is shown: yes, no, or ``-`` for an unfinished case."""
    return UNDEFINED if value is None else ("yes" if value else "no")


def interval_text(interval: Ends) -> str:
    """How an interval is written everywhere it is shown: ``0.63-1.00``, rounded outward."""
    low, high = outward_ends(interval)
    return f"{low}-{high}"


def outward_ends(interval: Ends) -> tuple[str, str]:
    """The ends at two decimals, the low one rounded down and the high one up, so a shown
    interval always contains the one computed (rounding to nearest could make it narrower,
    and a gate's reader would see a case clear a line its interval crosses).

    An end that is on a cent but for float noise (0.95 for 0 of 1 at 90%, computed a hair
    above it) is that cent; any other end is taken as the fraction it is.
    """
    return outward_texts(interval.low, interval.high)


def outward_texts(low: float, high: float) -> tuple[str, str]:
    """``low`` down and ``high`` up at two decimals (any range: an odds ratio too); an end
    on a cent but for float noise stays on it (``core.text.decimals``)."""
    return fixed(low, 2, "down"), fixed(high, 2, "up")


def level_text(confidence: float) -> str:
    """A level as a header writes it: 0.95 -> ``95%``, 0.999 -> ``99.9%``."""
    return f"{confidence * 100:.10g}%"


def gate_text(require: Fraction) -> str:
    """The gate as a user writes it (0.9), not as the fraction it is compared as (9/10)."""
    return f"{float(require):g}"


def promise_words(family_wise: bool) -> str:
    """Which promise the gate keeps, as the gate line says it."""
    return "whole suite" if family_wise else "per case"


def how_read(k: int, require: Fraction | None, confidence: float | None) -> str:
    """A way of reading cases in a pytest marker's words (``k=3, require=0.8, confidence=0.95``):
    the heading of each group when tests of one session are read differently."""
    words = [f"k={k}"]
    if require is not None:
        words.append(f"require={gate_text(require)}")
    if confidence is not None:
        words.append(f"confidence={confidence:g}")
    return ", ".join(words)
