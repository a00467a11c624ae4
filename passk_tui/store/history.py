"""The history list as rows of text: what `passk-tui history` prints and the History screen shows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from passk_tui.store.models import EvaluationSummary

HEADERS = ("id", "when", "agent", "version", "cases", "attempts", "status", "under gate")


def history_rows(summaries: Sequence[EvaluationSummary]) -> list[tuple[str, ...]]:
    """Header then one row per evaluation (newest first, as given), every cell as text.

    ``attempts`` is recorded/planned; ``under gate`` is the count of cases whose
    pass@k is under the stored --require, ``-`` when no gate was set.
    """
    rows = [HEADERS]
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
                "-" if s.under_gate is None else str(s.under_gate),
            )
        )
    return rows
