"""One reading of an evaluation, live or stored, that every face renders.

Each face used to assemble its own: the figures, which interval method they call
for, the gate's verdict, the extent of a cancel, the costs, the errored groups and
bursts. Assembled here once, a face only puts the reading into its own form (a
table and stderr lines, an ``api.Result``, a report), so the faces cannot drift
apart and none of them computes a figure. A live evaluation's reading is kept
until its Progress changes: the app asks on a timer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from weakref import WeakKeyDictionary

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.bounds import refused_usage_line
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.adaptive_text import adaptive_lines
from passk_tui.core.render.cost_text import cost_summary
from passk_tui.core.render.error_groups import ErrorGroup, error_groups, errors_said
from passk_tui.core.render.extent_text import not_run_text
from passk_tui.core.render.judge_text import judge_lines
from passk_tui.core.render.reruns_text import reruns_said
from passk_tui.core.render.table import plain_table
from passk_tui.core.run.budget import BUDGET_SPENT, budget_line
from passk_tui.core.run.sampling import reading as settings_reading
from passk_tui.core.stats.agreement.judge_votes import JudgeAgreement, judge_agreements
from passk_tui.core.stats.costs.case_costs import CaseCosts, progress_costs
from passk_tui.core.stats.costs.judge_costs import JudgeCosts, judge_costs
from passk_tui.core.stats.errored_bursts import MIN_ERRORED, Burst, find_burst
from passk_tui.core.stats.extent import Extent, progress_extent
from passk_tui.core.stats.gating.gate import CaseReading, Reading, gate_lines
from passk_tui.core.stats.progress import Progress
from passk_tui.core.stats.rates.figures import CaseFigures, FigureIntervals
from passk_tui.core.stats.rates.interval_choice import IntervalChoice, evaluation_choice
from passk_tui.core.stats.rates.intervals import GateVerdict
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
]

#: The reading last made of each live Progress, with the version it was made at.
_READINGS: WeakKeyDictionary[Progress, tuple[int, Settings, EvaluationReading]] = (
    WeakKeyDictionary()
)


@dataclass(frozen=True, eq=False)
class EvaluationReading:
    """Everything shown of one evaluation: status, figures, intervals and gate, extent,
    costs, errors and bursts. The parts only some faces show are made when first asked."""

    evaluation_id: str
    settings: Settings
    progress: Progress
    status_reason: str | None
    figures: Sequence[CaseFigures]
    choice: IntervalChoice
    """The interval method the evaluation's figures call for, and whether it was chosen by looking."""
    reading: Reading
    """Every case's intervals and verdict as the settings call for (method, level, gate)."""
    _records: Callable[[], Sequence[AttemptRecord]] = field(repr=False)
    """The stored counted records, in the order the store keeps them (bursts are found in it)."""

    @classmethod
    def of(cls, evaluation: RecordedEvaluation | StoredEvaluation) -> EvaluationReading:
        """The reading of a live evaluation (kept until its Progress changes) or of a stored one."""
        if isinstance(evaluation, StoredEvaluation):
            stored = evaluation
            return cls.made(
                stored.id,
                stored.settings,
                stored.progress(),
                stored.status_reason,
                lambda: stored.records,
            )
        live = evaluation
        kept = _READINGS.get(live.progress)
        if kept is not None and kept[0] == live.progress.version and kept[1] is live.settings:
            return kept[2]
        made = cls.made(
            live.evaluation_id,
            live.settings,
            live.progress,
            live.status_reason,
            lambda: live.store.load(live.evaluation_id).records,
        )
        _READINGS[live.progress] = (live.progress.version, live.settings, made)
        return made

    @classmethod
    def made(
        cls,
        evaluation_id: str,
        settings: Settings,
        progress: Progress,
        status_reason: str | None = None,
        records: Callable[[], Sequence[AttemptRecord]] | None = None,
    ) -> EvaluationReading:
        """The reading of ``progress`` under ``settings`` (``records``: the stored ones, for bursts)."""
        figures = progress.all_figures()
        choice = evaluation_choice(settings, figures)
        return cls(
            evaluation_id,
            settings,
            progress,
            status_reason,
            figures,
            choice,
            settings_reading(figures, settings, choice=choice),
            records or (lambda: [r for rows in progress.records for r in rows]),
        )

    @property
    def shown(self) -> Reading | None:
        """The reading the table shows intervals from: only when a confidence was asked for."""
        return self.reading if self.settings.confidence is not None else None

    def table(self) -> str:
        """The plain table, as the headless face prints it."""
        return plain_table(self.figures, self.settings.k, self.shown)

    @property
    def gate(self) -> GateVerdict | None:
        """``fail`` when any case fails, else ``undecided`` when any is, else ``pass``; None without ``require``."""
        if self.reading.require is None:
            return None
        if self.reading.failing:
            return "fail"
        return "undecided" if self.reading.undecided else "pass"

    @property
    def exit_code(self) -> int:
        """The gate's exit status for a finished evaluation."""
        return int(self.reading.exit_code)

    def gate_lines(self, shown_require: str | None = None) -> list[str]:
        """The gate's verdict in words, one line per failing (or undecided) case and the count."""
        return gate_lines(self.reading, shown_require)

    @cached_property
    def records(self) -> list[AttemptRecord]:
        """Every finished attempt, case by case."""
        return [r for rows in self.progress.records for r in rows]

    @cached_property
    def error_groups(self) -> list[ErrorGroup]:
        """The errored attempts grouped by what went wrong, largest group first."""
        return error_groups(self.records)

    def error_lines(self) -> list[str]:
        """Why attempts errored, in a few lines."""
        return errors_said(self.error_groups)

    @cached_property
    def refused_line(self) -> str | None:
        """The usage numbers refused, by key; None when there were none."""
        return refused_usage_line(self.records)

    @cached_property
    def reruns_line(self) -> str | None:
        """How many attempts ran again because their Ray node died (None: none did)."""
        return reruns_said(self.records)

    def interval_lines(self) -> list[str]:
        """Which intervals were made and why: adaptive, every case's stop; else a method chosen by looking."""
        if self.settings.adaptive:
            return adaptive_lines(self.progress, self.settings, self.reading)
        if self.reading.confident and self.choice.by_looking:
            return [self.choice.line(self.reading.level)]
        return []

    @cached_property
    def extent(self) -> Extent:
        """How far the evaluation got, and what a cancel left unrun."""
        return progress_extent(self.progress, self.settings)

    def not_run_line(self) -> str:
        """What a cancel left, in one line."""
        return not_run_text(self.extent)

    @cached_property
    def costs(self) -> list[CaseCosts]:
        """Each case's cost and tokens."""
        return progress_costs(self.progress, self.settings)

    def cost_line(self) -> str | None:
        """The evaluation's cost and tokens in one line; None when nothing was reported or priced."""
        return cost_summary(self.costs, self.settings)

    @cached_property
    def judges(self) -> list[JudgeAgreement]:
        """Each judge's agreement with itself over the evaluation's answers (none: no judge)."""
        return judge_agreements(self.records)

    @cached_property
    def judge_costs(self) -> JudgeCosts:
        """The judge's Runs, tokens and cost, apart from the agent's."""
        return judge_costs(self.records)

    def judge_lines(self) -> list[str]:
        """A line per judge (votes per answer, unanimity, Fleiss' kappa), and what it cost."""
        return judge_lines(self.judges, self.judge_costs)

    def budget_line(self) -> str | None:
        """Which cases got fewer attempts, when the evaluation's budget ended it."""
        if self.status_reason != BUDGET_SPENT:
            return None
        return budget_line(self.progress, self.settings)

    @cached_property
    def burst(self) -> Burst | None:
        """Errored attempts that came in a burst, or None (not looked for under ``MIN_ERRORED``)."""
        if sum(self.progress.errored) < MIN_ERRORED:
            return None
        return find_burst(self._records())
