"""One agent's stored evaluations over time, read once: each case's flakiness and trend.

What ``history --flaky`` prints and the Trends screen draws; neither works a figure out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from passk_tui.core.stats.trends.flakiness import Flakiness, Measurement, flakiness
from passk_tui.core.stats.trends.trend import TrendPoint, case_trend


@dataclass(frozen=True, eq=False)
class TrendsReading:
    """An agent's measurements, oldest first, and what they say of each case."""

    series: Sequence[Measurement]

    @cached_property
    def flakiness(self) -> Flakiness:
        """Which cases are flaky, and how each moved between versions."""
        return flakiness(self.series)

    def case(self, name: str) -> list[TrendPoint]:
        """One case's figure in each evaluation, with its interval, as the plot draws it."""
        return case_trend(self.series, name)
