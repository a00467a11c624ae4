"""The one reading (``core.reading``) of a live or a stored evaluation, and its vocabulary.

The reading itself is pure and lives in core, so that the reports render it too; here it
is gathered from what an evaluation is (a live one's Progress, a stored one's records) and
a live one's is kept until its Progress changes: the app asks on a timer.
"""

from __future__ import annotations

from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.reading.vocabulary import (
    CaseFigures,
    CaseReading,
    FigureIntervals,
    GateVerdict,
    Reading,
)
from passk_tui.evaluations.recorded import RecordedEvaluation
from passk_tui.store.models import StoredEvaluation

#: What a face needs to name the parts of a reading, without reaching into ``core.stats``.
__all__ = [
    "CaseFigures",
    "CaseReading",
    "EvaluationReading",
    "FigureIntervals",
    "GateVerdict",
    "Reading",
    "reading_of",
]


def reading_of(evaluation: RecordedEvaluation | StoredEvaluation) -> EvaluationReading:
    """The reading of a live evaluation (kept until its Progress changes) or of a stored one."""
    if isinstance(evaluation, StoredEvaluation):
        return evaluation.reading()
    live = evaluation
    kept = live.kept_reading
    if kept is not None and kept[0] == live.progress.version and kept[1] is live.settings:
        return kept[2]
    made = EvaluationReading(
        live.evaluation_id,
        live.settings,
        live.progress,
        live.status_reason,
        lambda: live.store.load(live.evaluation_id).records,
    )
    live.kept_reading = (live.progress.version, live.settings, made)
    return made
