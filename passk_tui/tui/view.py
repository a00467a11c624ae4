"""What the run, results and case screens read: one evaluation, live or loaded from the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from passk_tui.core.inputs.agent_definition import Definition, labelled
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.reading.vocabulary import (
    CaseCosts,
    CaseFigures,
    CaseReading,
    Cell,
    ConversationSpread,
    Extent,
    IntervalChoice,
    Progress,
    Reading,
)
from passk_tui.core.run.cases import Case
from passk_tui.core.run.engine import Evaluation

if TYPE_CHECKING:
    from passk_tui.store.models import StoredEvaluation


@dataclass
class EvaluationView:
    """An evaluation as the screens see it; ``evaluation`` is set while it is live in this app."""

    evaluation_id: str
    settings: Settings
    progress: Progress
    cases: list[Case] | None = None
    evaluation: Evaluation | None = None
    stored_status: str | None = None
    stored_error: str | None = None
    stored_reason: str | None = None
    #: Why the evaluation stopped before it could run (prepare raised): set by the app.
    failed_with: str | None = None
    #: False in tests and snapshots: rates, clocks and durations show as dashes.
    show_timing: bool = True
    #: What the agent resolved to (``core.inputs.agent_definition``); None: not recorded.
    definition: Definition | None = None
    _read: tuple[int, Settings, EvaluationReading] | None = field(
        default=None, repr=False, compare=False
    )
    _case_readings: dict[int, tuple[tuple[bytes, str], CaseReading]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @classmethod
    def running_here(cls, evaluation: Evaluation) -> EvaluationView:
        return cls(
            evaluation.evaluation_id,
            evaluation.settings,
            evaluation.progress,
            evaluation.cases,
            evaluation,
            # A recorded evaluation knows what its agent resolved to; a bare one does not.
            definition=evaluation.definition,
        )

    @classmethod
    def from_store(cls, stored: StoredEvaluation, show_timing: bool = True) -> EvaluationView:
        """A stored evaluation as the screens read it: frozen, it is not running here."""
        return cls(
            stored.id,
            stored.settings,
            stored.progress(),
            stored.cases,
            stored_status=stored.status,
            stored_error=stored.error,
            stored_reason=stored.status_reason,
            show_timing=show_timing,
            definition=stored.definition,
        )

    @property
    def status(self) -> str:
        """running, done, cancelled or failed (or whatever the store recorded)."""
        if self.failed_with is not None:
            return "failed"
        if self.evaluation is not None:
            return self.evaluation.status or "running"
        return self.stored_status or "unknown"

    @property
    def error(self) -> str | None:
        if self.failed_with is not None:
            return self.failed_with
        return self.evaluation.error if self.evaluation is not None else self.stored_error

    @property
    def status_reason(self) -> str | None:
        """Why it ended as it did, beside its status (``budget spent``); None: nothing to add."""
        if self.evaluation is not None:
            return self.evaluation.status_reason
        return self.stored_reason

    def read(self) -> EvaluationReading:
        """The evaluation's one reading (``core.reading``), made again only when Progress moved
        or the settings changed (an extension): every screen renders it, none computes."""
        kept = self._read
        if kept is None or kept[0] != self.progress.version or kept[1] is not self.settings:
            made = EvaluationReading(
                self.evaluation_id, self.settings, self.progress, self.status_reason
            )
            kept = self._read = (self.progress.version, self.settings, made)
        return kept[2]

    def costs(self) -> list[CaseCosts]:
        """Per case its tokens, durations and money."""
        return self.read().costs

    def conversations(self) -> list[ConversationSpread]:
        """Per case its turns, tool calls and steps per attempt (p50 / p95)."""
        return self.read().conversations

    def judge_lines(self) -> list[str]:
        """What the judge said of itself: a line per judge and its cost (none: no judge)."""
        return self.read().judge_lines()

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def live(self) -> bool:
        """Running here, so what the screens show keeps moving (not a stored snapshot)."""
        return self.evaluation is not None and self.running

    @property
    def snapshot_of_running(self) -> bool:
        """Loaded from the store while another process still runs it: frozen, not live."""
        return self.evaluation is None and self.running

    def title(self) -> str:
        """Agent, version and the cases file's name (its folder is in the settings line)."""
        s = self.settings
        return f"{s.agent} v{s.version} · {Path(s.cases_path).name}"

    def ran(self) -> str:
        """What the agent version ran, in one line: ``calc v1: python3 agents/calc.py``."""
        return labelled(self.settings.agent, self.settings.version, self.definition)

    def failing(self) -> list[CaseFigures]:
        """The cases the --require gate fails (empty without a gate): under the point gate, or
        with --confidence wholly below it."""
        return [case.figures for case in self.reading().failing]

    def interval_choice(self) -> IntervalChoice:
        """The evaluation's interval method and why: anytime-valid while attempts are landing,
        or once n was chosen by looking."""
        return self.read().choice

    def reading(self) -> Reading:
        """Every case's intervals and gate verdict at the evaluation's level, by its method."""
        return self.read().reading

    def extent(self) -> Extent:
        """How far the evaluation got and can go (adaptive: its cap, its cases' standing): what
        the Run screen's lines, the Results header and History all describe it from.

        The reading (every case's intervals) is made for it only with a gate, the one thing it
        is read for here: the Run screen asks ten times a second, and without a gate a
        1,000-case run paid a whole reading per tick (a third more CPU than headless)."""
        return self.read().extent

    def case_reading(self, case_index: int) -> CaseReading:
        """One case's reading, worked out again only when that case's cells (or the
        evaluation's method) changed.

        What the live grid asks for each line it draws: reading every case again whenever
        any attempt finished cost a 1,000-case run a whole reading per repaint."""
        cells = bytes(self.progress.cells[case_index])
        reading = self.read()
        cached = self._case_readings.get(case_index)
        if cached is None or cached[0] != (cells, reading.choice.method.name):
            cached = ((cells, reading.choice.method.name), reading.case_reading(case_index))
            self._case_readings[case_index] = cached
        return cached[1]

    def still_sampled(self, case_index: int) -> bool:
        """Live and the case still has attempts to come: pending or in flight, or an adaptive
        policy has not stopped it yet (it hands out one attempt at a time)."""
        evaluation = self.evaluation
        if evaluation is None or not self.running:  # not live
            return False
        stopped = evaluation.policy.stop_reasons
        if stopped is not None and case_index not in stopped:
            return True
        return any(state < Cell.PASSED for state in self.progress.cells[case_index])
