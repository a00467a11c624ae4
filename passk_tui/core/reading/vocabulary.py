"""The names a face needs for the parts of a reading: the types and constants it shows.

A face renders a reading and computes nothing, so it imports no statistics function;
what it does need is to name what it is handed (a case's figures, an interval, a cell
of the grid, a comparison's verdict). Those types are re-exported here, so the faces
and the reports depend on the reading's vocabulary and not on where core keeps each.
"""

from __future__ import annotations

from passk_tui.core.stats.agreement.judge_votes import JudgeAgreement
from passk_tui.core.stats.comparing.compare import CaseComparison, Comparison
from passk_tui.core.stats.comparing.matrix import MATRIX_HOLM, MatrixComparison
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
from passk_tui.core.stats.trends.flakiness import Flakiness, Measurement
from passk_tui.core.stats.trends.trend import TrendPoint

__all__ = [
    "CELL_OF_OUTCOME",
    "DEFAULT_CONFIDENCE",
    "FOREST_FIGURES",
    "MATRIX_HOLM",
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
