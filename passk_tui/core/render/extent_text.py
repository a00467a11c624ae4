"""An evaluation's extent in words, as every face writes it (``core.stats.extent`` holds the counts).

A fixed n: ``15 of 15 attempts``. Adaptive: ``104 of at most 200 attempts (3 to 40 per
case)``, and how its cases stand: ``3 decided pass, 2 capped undecided, 1 still sampled``.
"""

from __future__ import annotations

from passk_tui.core.stats.extent import Extent
from passk_tui.core.text.amounts import clock, counted

#: How each stop reason is counted in words (a capped case is still undecided).
_KIND_WORDS = {"capped": "capped undecided"}


def attempts_text(extent: Extent) -> str:
    """``12 of 15 attempts``; adaptive ``104 of at most 200 attempts (3 to 40 per case)``."""
    if extent.cap is None:
        return f"{extent.finished:,} of {counted(extent.known, 'attempt')}"
    return (
        f"{extent.finished:,} of at most {counted(extent.most, 'attempt')} "
        f"({extent.per_case} to {extent.cap} per case)"
    )


def attempts_cell(extent: Extent) -> str:
    """The same in a table cell: ``12/15``; adaptive ``104/≤200`` (at most, not planned);
    held below either by a Run budget, ``12/≤14`` (``budget_label`` says why)."""
    if extent.budget_bound:
        return f"{extent.finished}/≤{extent.total}"
    if extent.cap is None:
        return f"{extent.finished}/{extent.known}"
    return f"{extent.finished}/≤{extent.most}"


def budget_label(extent: Extent) -> str:
    """`` (Run budget)`` after the count a Run budget holds below the plan; else empty."""
    return " (Run budget)" if extent.budget_bound else ""


def standing_text(extent: Extent) -> str:
    """Adaptive: how the cases stand, ``3 decided pass, 2 capped undecided``; else empty."""
    if not extent.adaptive:
        return ""
    parts = [f"{n} {_KIND_WORDS.get(kind, kind)}" for kind, n in extent.stopped.items()]
    if extent.sampling:
        parts.append(f"{extent.sampling} still sampled")
    return ", ".join(parts)


def adaptive_summary(extent: Extent) -> str:
    """The headless stderr's closing line for an adaptive run, and the Results header's."""
    standing = standing_text(extent)
    return f"adaptive: {extent.finished:,} attempts over {counted(extent.cases, 'case')}" + (
        f"; {standing}" if standing else ""
    )


def time_left_text(extent: Extent, rate: float) -> str:
    """``~0:04 left`` at ``rate`` attempts a second; adaptive while the total may still grow,
    ``at most ~0:40 left`` (every case to the cap, or as far as a Run budget allows);
    empty with no rate yet or nothing left."""
    if rate <= 0:
        return ""
    if extent.growing:
        return f"at most ~{clock((extent.total - extent.finished) / rate)} left"
    left = extent.total - extent.finished
    return f"~{clock(left / rate)} left" if left > 0 else ""


def not_run_text(extent: Extent) -> str:
    """What a cancel left: ``cancelled: 702 attempts not run``; adaptive, of the most there
    could have been (either held to what a Run budget allowed): ``cancelled: 3 cases still sampled, up to 96 attempts not run``."""
    if extent.growing:
        return (
            f"cancelled: {counted(extent.sampling, 'case')} still sampled, "
            f"up to {counted(extent.total - extent.finished, 'attempt')} not run"
        )
    return f"cancelled: {counted(extent.total - extent.finished, 'attempt')} not run"
