"""The level a comparison is read at, as exact as its flag writes it (``--confidence 0.95``).

Parsed where the other flag values are, so a face reading ``compare``'s, ``pair``'s or a
matrix's flag, or ``evaluate()``'s keyword, asks no statistics module for it.
"""

from __future__ import annotations

from fractions import Fraction

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import parse_require

#: A comparison's level when none is given: 95%, as an exact fraction.
DEFAULT_CONFIDENCE = Fraction(95, 100)


def parse_exact_confidence(text: str) -> Fraction:
    """The level C as an exact fraction of its decimal text (0.95 is exactly 19/20); 0 < C < 1."""
    value = parse_require(text)
    if value in (0, 1):
        raise InputError(f"must be above 0 and below 1, got {text}")
    return value
