"""One reading of an evaluation, live or stored, that every face renders.

Each face used to assemble its own: the figures, which interval method they call
for, the gate's verdict, the extent of a cancel, the costs, the errored groups and
bursts. Assembled here once, a face only puts the reading into its own form (a
table and stderr lines, an ``api.Result``, a report, a screen), so the faces cannot
drift apart and none of them computes a figure. Pure: made from a Progress, the
settings and the stored records (``evaluations/reading.py`` gathers them from a live
or a stored evaluation and keeps a live one's reading until its Progress changes),
so the reports, below the evaluations, render it too. Each part is made when first
asked: the Run screen asks for the extent ten times a second, and without a gate it
needs no figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.bounds import refused_usage_line
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.reading.gate_words import gate_lines
from passk_tui.core.render.adaptive_text import adaptive_lines
from passk_tui.core.render.cost_text import cost_summary
from passk_tui.core.render.error_groups import ErrorGroup, error_groups, errors_said
from passk_tui.core.render.extent_text import not_run_text
from passk_tui.core.render.judge_text import judge_lines
from passk_tui.core.render.reruns_text import reruns_said
from passk_tui.core.render.table import plain_table
from passk_tui.core.run.budget import BUDGET_SPENT, budget_line
from passk_tui.core.run.sampling import gate_confidence, interval_level
from passk_tui.core.run.sampling import reading as settings_reading
from passk_tui.core.stats.agreement.judge_votes import (
    AnswerVotes,
    JudgeAgreement,
    answer_votes,
    judge_agreements,
    unanimous_share,
)
from passk_tui.core.stats.costs.case_costs import (
    CaseCosts,
    evaluation_cost,
    known_sum,
    progress_costs,
)
from passk_tui.core.stats.costs.conversation_spread import (
    ConversationSpread,
    progress_conversations,
)
from passk_tui.core.stats.costs.judge_costs import JudgeCosts, judge_costs
from passk_tui.core.stats.errored_bursts import MIN_ERRORED, Burst, find_burst
from passk_tui.core.stats.extent import Extent, progress_extent, running_seconds
from passk_tui.core.stats.gating.gate import CaseReading, Reading, read
from passk_tui.core.stats.plan.gate_chance import attempts_to_settle
from passk_tui.core.stats.progress import Progress
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.interval_choice import (
    EXTENDING_NOTE,
    IntervalChoice,
    interval_choice,
    n_chosen_by_looking,
    watched_text,
)
from passk_tui.core.stats.rates.intervals import GateVerdict
from passk_tui.core.stats.rates.summary import EvaluationTotals, evaluation_totals

if TYPE_CHECKING:
    from passk_tui.core.stats.rates.curves import Curve
    from passk_tui.core.stats.rates.forest import ForestFigure, ForestRow


@dataclass(frozen=True, eq=False)
class EvaluationReading:
    """Everything shown of one evaluation: status, figures, intervals and gate, extent,
    costs, errors and bursts, each made when first asked."""

    evaluation_id: str
    settings: Settings
    progress: Progress
    status_reason: str | None = None
    stored_records: Callable[[], Sequence[AttemptRecord]] | None = field(default=None, repr=False)
    """The stored counted records, in the order the store keeps them (bursts are found in
    it); None: the Progress's, case by case."""

    @cached_property
    def figures(self) -> list[CaseFigures]:
        """Every case's figures, in case order."""
        return self.progress.all_figures()

    @cached_property
    def choice(self) -> IntervalChoice:
        """The interval method the evaluation calls for, and whether n was chosen by looking
        (anytime-valid while attempts are landing, or once n was chosen by looking)."""
        return interval_choice(self.settings, self.progress.planned_reached)

    @property
    def level(self) -> float:
        """The level of every interval shown (family-wise: each case's share of the suite's)."""
        return interval_level(self.settings, len(self.progress.case_names))

    def case_reading(self, case_index: int) -> CaseReading:
        """One case read alone as the evaluation reads it (its share of the suite's level):
        what the live grid asks of each line it draws, without reading every case."""
        figures = [self.progress.figures(case_index)]
        whole = len(self.progress.cells)
        return settings_reading(figures, self.settings, whole, self.choice).cases[0]

    @cached_property
    def totals(self) -> EvaluationTotals:
        """Attempts and cases counted by outcome, over every case."""
        planned = [len(cells) for cells in self.progress.cells]
        return evaluation_totals(self.figures, planned, self.settings.require)

    @property
    def running_seconds(self) -> float | None:
        """Seconds during which at least one attempt was running; None before any ended."""
        return running_seconds(self.progress.records)

    def to_settle(self, case: CaseReading) -> int | None:
        """About how many more attempts would decide an undecided case half the time (None:
        too close to the line to plan), its rate taken at its estimate."""
        require = self.reading.require
        assert require is not None
        f = case.figures
        return attempts_to_settle(f.passed, f.n, require, self.reading.k, self.reading.level)

    def curve(self, case_index: int) -> Curve:
        """A case's pass@k and pass^k at every k, with intervals at the evaluation's level."""
        from passk_tui.core.stats.rates.curves import pass_curve  # the app's curve view only

        f = self.progress.figures(case_index)
        return pass_curve(f.passed, f.n, self.level, self.choice.method, f.order)

    def forest(self, figure: ForestFigure) -> list[ForestRow]:
        """Every case's ``figure`` with its interval, as the forest plot draws them."""
        from passk_tui.core.stats.rates.forest import forest_rows  # the app's forest view only

        s = self.settings
        return forest_rows(self.figures, figure, s.require, self.level, self.choice.method)

    @property
    def watched_line(self) -> str:
        """What the Run screen says of the intervals it shows while attempts land."""
        return watched_text(self.settings)

    @property
    def extending_note(self) -> str:
        """What extending would do to the intervals ("" when n was chosen by looking already)."""
        return "" if n_chosen_by_looking(self.settings) else EXTENDING_NOTE

    @cached_property
    def reading(self) -> Reading:
        """Every case's intervals and verdict as the settings call for (method, level, gate)."""
        return settings_reading(self.figures, self.settings, choice=self.choice)

    def read_at(self, confidence: float | None) -> Reading:
        """Every case read at ``confidence`` (None: the level the settings' gate reads at) by
        the evaluation's own method: a report at the level it was asked for, a pair's
        candidate at the comparison's."""
        s = self.settings
        level = confidence if confidence is not None else gate_confidence(s)
        return read(self.figures, s.require, level, self.choice.method, s.family_wise)

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

    @property
    def extent(self) -> Extent:
        """How far the evaluation got and can go, and what a cancel left unrun (asked again
        each time: a policy's stop reasons and a budget's bound move between versions)."""
        gated = self.reading if self.settings.require is not None else None
        return progress_extent(self.progress, self.settings, gated)

    @property
    def attempts_extent(self) -> Extent:
        """How far the evaluation got in attempts, without the gate's counts, so no reading is
        made for it: what the live line asks each tick."""
        return progress_extent(self.progress, self.settings)

    def not_run_line(self) -> str:
        """What a cancel left, in one line."""
        return not_run_text(self.attempts_extent)

    @cached_property
    def costs(self) -> list[CaseCosts]:
        """Each case's cost and tokens."""
        return progress_costs(self.progress, self.settings)

    @cached_property
    def conversations(self) -> list[ConversationSpread]:
        """Each case's turns, tool calls and steps per attempt (p50 / p95)."""
        return progress_conversations(self.progress)

    @property
    def total_cost(self) -> Fraction | None:
        """The evaluation's cost, a sum over its cases; None when no case has a cost."""
        return evaluation_cost(self.costs)

    @property
    def user_cost(self) -> Fraction | None:
        """A simulated user's money, apart from the agent's and the judge's (None: unknown)."""
        return known_sum(row.user_cost for row in self.conversations)

    def case_judging(self, case_index: int) -> tuple[float | None, JudgeCosts]:
        """A case's share of answers its judges agreed on unanimously (None: none judged),
        and what judging it cost."""
        records = self.progress.records[case_index]
        return unanimous_share(records), judge_costs(records)

    def votes(self, record: AttemptRecord) -> list[AnswerVotes]:
        """The judges' votes on one of its attempts, a judge at a time in the order first asked."""
        return answer_votes(record.votes)

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
        return find_burst(self.stored_records() if self.stored_records else self.records)
