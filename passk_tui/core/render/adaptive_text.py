"""An adaptive evaluation in words: why each case stopped, the stop rule, the closing counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.extent_text import adaptive_summary
from passk_tui.core.stats.extent import progress_extent
from passk_tui.core.stats.gating.gate import Reading
from passk_tui.core.stats.gating.stopping import DEFAULT_PRECISION, StopReason
from passk_tui.core.stats.progress import Progress
from passk_tui.core.text.figure_text import level_text


def stop_lines(names: Sequence[str], reasons: Mapping[int, StopReason]) -> list[str]:
    """One line per case: why it stopped getting attempts, or that it had not stopped yet."""
    return [
        f"stop: {name}: {reasons.get(i, 'still sampled (not stopped)')}"
        for i, name in enumerate(names)
    ]


def adaptive_lines(progress: Progress, settings: Settings, reading: Reading) -> list[str]:
    """For stderr after an adaptive run: which intervals, each case's stop reason, the counts."""
    return [
        f"intervals: {level_text(reading.level)} {reading.method.label}, valid however often "
        f"looked at; {settings.attempts} to {settings.max_attempts} attempts per case",
        *stop_lines(progress.case_names, progress.stop_reasons),
        adaptive_summary(progress_extent(progress, settings)),
    ]


def stop_rule_text(settings: Settings) -> str | None:
    """When an adaptive case is decided, in words; None for a fixed n."""
    if not settings.adaptive:
        return None
    if settings.require is not None:
        return (
            f"decided once the pass@{settings.k} interval lies wholly at or above, or below, "
            f"{float(settings.require):g}"
        )
    width = DEFAULT_PRECISION if settings.precision is None else settings.precision
    return f"decided (precise) once the pass@1 interval is at most {width:g} wide"
