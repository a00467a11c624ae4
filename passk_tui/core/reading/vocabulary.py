"""The names a face needs for the parts of a reading: the types and constants it shows.

A face renders a reading and computes nothing, so it imports no statistics function;
what it does need is to name what it is handed (a case's figures, an interval, a cell
of the grid, a comparison's verdict). Those types are re-exported here, so the faces
and the reports depend on the reading's vocabulary and not on where core keeps each.
Each is imported the first time it is asked for (PEP 562, as ``passk_tui/__init__.py``
does): a plain headless run names a cell and a case's figures without loading the
comparison's tests.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from passk_tui.core.stats.agreement.judge_votes import AnswerVotes, JudgeAgreement
    from passk_tui.core.stats.comparing.compare import MATRIX_HOLM, CaseComparison, Comparison
    from passk_tui.core.stats.comparing.matrix import MatrixComparison
    from passk_tui.core.stats.comparing.suite import SuiteComparison
    from passk_tui.core.stats.comparing.verdicts import ChangeVerdict
    from passk_tui.core.stats.costs.case_costs import CaseCosts, Spread
    from passk_tui.core.stats.costs.conversation_spread import ConversationSpread
    from passk_tui.core.stats.costs.judge_costs import JudgeCosts
    from passk_tui.core.stats.errored_bursts import Burst
    from passk_tui.core.stats.extent import Extent
    from passk_tui.core.stats.gating.gate import CaseReading, Reading
    from passk_tui.core.stats.gating.stopping import StopReason
    from passk_tui.core.stats.progress import CELL_OF_OUTCOME, Cell, Progress
    from passk_tui.core.stats.rates.curves import Curve, CurvePoint
    from passk_tui.core.stats.rates.figures import CaseFigures, FigureIntervals
    from passk_tui.core.stats.rates.forest import FOREST_FIGURES, ForestFigure, ForestRow
    from passk_tui.core.stats.rates.interval_choice import IntervalChoice
    from passk_tui.core.stats.rates.intervals import DEFAULT_CONFIDENCE, GateVerdict, Interval
    from passk_tui.core.stats.rates.summary import EvaluationTotals
    from passk_tui.core.stats.trends.flakiness import Flakiness, Measurement
    from passk_tui.core.stats.trends.trend import TrendPoint

#: Each name and the module that holds it.
_WHERE = {
    "AnswerVotes": "passk_tui.core.stats.agreement.judge_votes",
    "JudgeAgreement": "passk_tui.core.stats.agreement.judge_votes",
    "CaseComparison": "passk_tui.core.stats.comparing.compare",
    "Comparison": "passk_tui.core.stats.comparing.compare",
    "MATRIX_HOLM": "passk_tui.core.stats.comparing.compare",
    "MatrixComparison": "passk_tui.core.stats.comparing.matrix",
    "SuiteComparison": "passk_tui.core.stats.comparing.suite",
    "ChangeVerdict": "passk_tui.core.stats.comparing.verdicts",
    "CaseCosts": "passk_tui.core.stats.costs.case_costs",
    "Spread": "passk_tui.core.stats.costs.case_costs",
    "ConversationSpread": "passk_tui.core.stats.costs.conversation_spread",
    "JudgeCosts": "passk_tui.core.stats.costs.judge_costs",
    "Burst": "passk_tui.core.stats.errored_bursts",
    "Extent": "passk_tui.core.stats.extent",
    "CaseReading": "passk_tui.core.stats.gating.gate",
    "Reading": "passk_tui.core.stats.gating.gate",
    "StopReason": "passk_tui.core.stats.gating.stopping",
    "CELL_OF_OUTCOME": "passk_tui.core.stats.progress",
    "Cell": "passk_tui.core.stats.progress",
    "Progress": "passk_tui.core.stats.progress",
    "Curve": "passk_tui.core.stats.rates.curves",
    "CurvePoint": "passk_tui.core.stats.rates.curves",
    "CaseFigures": "passk_tui.core.stats.rates.figures",
    "FigureIntervals": "passk_tui.core.stats.rates.figures",
    "FOREST_FIGURES": "passk_tui.core.stats.rates.forest",
    "ForestFigure": "passk_tui.core.stats.rates.forest",
    "ForestRow": "passk_tui.core.stats.rates.forest",
    "IntervalChoice": "passk_tui.core.stats.rates.interval_choice",
    "DEFAULT_CONFIDENCE": "passk_tui.core.stats.rates.intervals",
    "GateVerdict": "passk_tui.core.stats.rates.intervals",
    "Interval": "passk_tui.core.stats.rates.intervals",
    "EvaluationTotals": "passk_tui.core.stats.rates.summary",
    "Flakiness": "passk_tui.core.stats.trends.flakiness",
    "Measurement": "passk_tui.core.stats.trends.flakiness",
    "TrendPoint": "passk_tui.core.stats.trends.trend",
}

__all__ = [
    "CELL_OF_OUTCOME",
    "DEFAULT_CONFIDENCE",
    "FOREST_FIGURES",
    "MATRIX_HOLM",
    "AnswerVotes",
    "Burst",
    "CaseComparison",
    "CaseCosts",
    "CaseFigures",
    "CaseReading",
    "Cell",
    "ChangeVerdict",
    "Comparison",
    "ConversationSpread",
    "Curve",
    "CurvePoint",
    "EvaluationTotals",
    "Extent",
    "FigureIntervals",
    "Flakiness",
    "ForestFigure",
    "ForestRow",
    "GateVerdict",
    "Interval",
    "IntervalChoice",
    "JudgeAgreement",
    "JudgeCosts",
    "MatrixComparison",
    "Measurement",
    "Progress",
    "Reading",
    "Spread",
    "StopReason",
    "SuiteComparison",
    "TrendPoint",
]


def __getattr__(name: str) -> Any:
    """A name of the vocabulary, imported the first time it is asked for."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
