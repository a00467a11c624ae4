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


def plain_columns(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns, two spaces apart, a dash rule under the header (as the results table)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    rule = ["-" * w for w in widths]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [rows[0], rule, *rows[1:]]
    ]
    return "\n".join(lines) + "\n"
