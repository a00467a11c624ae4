"""The history list as rows of text: what `passk-tui history` prints and the History screen shows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from fractions import Fraction

from passk_tui.core.stats.figures import UNDEFINED, CaseFigures
from passk_tui.core.stats.gate import read
from passk_tui.core.stats.intervals import CLOPPER_PEARSON, DEFAULT_CONFIDENCE, IntervalMethod
from passk_tui.core.text.table import below_gate
from passk_tui.store.models import EvaluationSummary

HEADERS = ("id", "when", "agent", "version", "cases", "attempts", "status", "under gate")


def gate_counts(
    figures: Sequence[CaseFigures], require: Fraction, method: IntervalMethod = CLOPPER_PEARSON
) -> tuple[int | None, int]:
    """(cases under the point gate, cases the confident gate decides at the default level).

    The first is None while any case's pass@k is undefined (fewer than k
    attempts): a count over the cases that happen to be defined would look final.
    ``method`` is the evaluation's own (anytime-valid when it was adaptive).
    """
    under = None if any(not f.defined for f in figures) else len(below_gate(figures, require))
    return under, read(figures, require, DEFAULT_CONFIDENCE, method).decided


def history_rows(summaries: Sequence[EvaluationSummary]) -> list[tuple[str, ...]]:
    """Header then one row per evaluation (newest first, as given), every cell as text.

    ``attempts`` is recorded/planned (adaptive: of at most cases x max attempts); ``under gate`` is the count of cases whose
    pass@k is under the stored --require, ``-`` when no gate was set or while
    some case's pass@k is undefined.
    """
    rows: list[tuple[str, ...]] = [HEADERS]
    for s in summaries:
        rows.append(
            (
                s.id,
                datetime.fromtimestamp(s.created).strftime("%Y-%m-%d %H:%M"),
                s.agent,
                str(s.version),
                str(s.cases),
                f"{s.recorded}/{s.total}",
                s.status,
                UNDEFINED if s.under_gate is None else str(s.under_gate),
            )
        )
    return rows
