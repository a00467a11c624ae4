"""The history list as rows of text: what `passk-tui history` prints and the History screen shows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.extent_text import attempts_cell
from passk_tui.core.run.sampling import reading
from passk_tui.core.stats.gating.gate import read
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.interval_choice import evaluation_choice
from passk_tui.core.stats.rates.intervals import DEFAULT_CONFIDENCE
from passk_tui.core.text.figure_text import UNDEFINED
from passk_tui.store.models import EvaluationSummary

HEADERS = ("id", "when", "agent", "version", "cases", "attempts", "status", "under gate")
#: The status shown for an evaluation that failed before its first attempt: nothing was
#: measured, so it is no failed evaluation (it stays listed: `--resume` may still run it).
NOT_STARTED = "not started"


def shown_status(summary: EvaluationSummary) -> str:
    """The evaluation's status as History says it: ``not started`` for one that failed before
    any attempt (it read ``failed 0/25``, as if an agent had failed 25 times)."""
    if summary.status == "failed" and not summary.attempted:
        return NOT_STARTED
    return summary.status


def gate_counts(figures: Sequence[CaseFigures], settings: Settings) -> tuple[int | None, int]:
    """(cases the evaluation's own gate fails, cases a confident gate decides).

    The gate is the one Results reads (``core.run.sampling.reading``): the confident one
    for an adaptive evaluation, so History's count is Results' "failed", not a point
    gate beside it. Under the point gate the count is None while any case's pass@k
    is undefined (fewer than k attempts): a count over the cases that happen to be
    defined would look final; the cases decided are then read at the default level.
    """
    own = reading(figures, settings)
    if own.confident:
        return len(own.failing), own.decided
    under = None if any(not f.defined for f in figures) else len(own.failing)
    method = evaluation_choice(settings, figures).method
    confident = read(figures, settings.require, DEFAULT_CONFIDENCE, method)
    return under, confident.decided


def agent_cell(summary: EvaluationSummary) -> str:
    """The agent, then its label and the matrix it ran in, when it has them
    (``calc · nightly · group 3f2a91c0``)."""
    parts = [summary.agent, summary.label, summary.group and f"group {summary.group}"]
    return " · ".join(part for part in parts if part)


def history_rows(summaries: Sequence[EvaluationSummary]) -> list[tuple[str, ...]]:
    """Header then one row per evaluation (newest first, as given), every cell as text.

    ``attempts`` is recorded/planned (adaptive ``104/≤200``: of at most cases x max
    attempts); ``under gate`` is the count of cases the stored --require fails (by the
    evaluation's own gate, as Results reads it), ``-`` when no gate was set or while
    some case's pass@k is undefined under the point gate.
    """
    rows: list[tuple[str, ...]] = [HEADERS]
    for s in summaries:
        rows.append(
            (
                s.id,
                datetime.fromtimestamp(s.created).strftime("%Y-%m-%d %H:%M"),
                agent_cell(s),
                str(s.version),
                str(s.cases),
                attempts_cell(s.extent),
                shown_status(s),
                UNDEFINED if s.under_gate is None else str(s.under_gate),
            )
        )
    return rows
