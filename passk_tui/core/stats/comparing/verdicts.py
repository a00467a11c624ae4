"""What a comparison says about a change: per case and for the whole suite alike."""

from __future__ import annotations

from enum import StrEnum


class ChangeVerdict(StrEnum):
    """What the adjusted p-value says about one case's change (or the suite's)."""

    IMPROVED = "improved"
    REGRESSED = "regressed"
    UNCLEAR = "unclear"
