"""What the store hands back: a line of history, and a whole stored evaluation."""

from __future__ import annotations

from dataclasses import dataclass, field

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.run.cases import Case
from passk_tui.core.run.policy import Slot
from passk_tui.core.stats.extent import Extent
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.stats.progress import Progress
from passk_tui.core.stats.rates.figures import CaseFigures


@dataclass(frozen=True, slots=True)
class EvaluationSummary:
    """One line of history: what was measured, how far it got, and how many cases missed the gate."""

    id: str
    created: float
    finished: float | None
    agent: str
    version: int
    stack: str | None
    cases: int
    attempts: int
    recorded: int
    status: str
    """done, interrupted (the process died), cancelled, failed, or running (in another process)."""
    under_gate: int | None
    """Cases whose pass@k is under the stored --require; None with no gate, or while some
    case has fewer than k attempts (its pass@k is undefined, so the count is too)."""
    extent: Extent
    """How far it got and can go (``core.stats.extent``), as every face describes it."""
    decided: int | None = None
    """Cases a confident gate decides, pass or fail (the evaluation's own, else one at the
    default 0.95); None with no gate."""
    max_attempts: int | None = None
    """Adaptive: the cap per case; None for a fixed n."""
    definition: Definition | None = None
    """What the agent resolved to; None: stored before it was (a Python callable's says so)."""
    label: str | None = None
    """``--label``'s words, shown beside the agent; None: none given."""
    group: str | None = None
    """The matrix it ran in (its first evaluation's id); None: it ran alone."""
    attempted: bool = True
    """Whether any attempt was handed out (recorded, or withdrawn); False for one that failed
    before its first (a stack unreachable, a key refused): nothing was measured."""


@dataclass(frozen=True, slots=True)
class StoredEvaluation:
    """An evaluation as stored: its settings, its cases (checks recompiled) and its records."""

    id: str
    created: float
    finished: float | None
    status: str
    error: str | None
    settings: Settings
    cases: list[Case]
    cases_sha256: str
    records: list[AttemptRecord]
    """The counted records (passed, wrong, errored), by case and attempt."""
    withdrawn: list[AttemptRecord] = field(default_factory=list)
    """Attempts the user's stop withdrew: counted nowhere, kept to number their retakes."""
    stop_reasons: dict[int, StopReason] = field(default_factory=dict)
    """Adaptive: why each case that stopped getting attempts stopped, by case index."""
    in_flight: list[Slot] = field(default_factory=list)
    """Attempts whose Run was (or was about to be) requested and that have no record: a
    resume finishes them under the same keys before its policy decides anything."""
    definition: Definition | None = None
    """What the agent resolved to (``core.inputs.agent_definition``); None: stored before it was."""
    status_reason: str | None = None
    """Why it ended as it did, when its status does not say it all (``budget spent``)."""

    @property
    def runs_started(self) -> int:
        """The Runs this evaluation has started, resumes included: one per key it sent (every
        record, withdrawn or not, and every attempt in flight, whose replay starts none)."""
        judged = sum(len(r.votes) for r in self.records)  # the judge's Runs, one per vote
        return len(self.records) + len(self.withdrawn) + len(self.in_flight) + judged

    @property
    def missing(self) -> int:
        """Attempts without a record: what a resume would run."""
        attempts = self.settings.attempts
        return len(self.cases) * attempts - sum(1 for r in self.records if r.attempt <= attempts)

    def retakes(self) -> dict[tuple[int, int], int]:
        """The retake each withdrawn, still unrecorded (case, attempt) runs under next; one in
        flight, the retake whose Run it replays."""
        recorded = {(r.case_index, r.attempt) for r in self.records}
        next_retake: dict[tuple[int, int], int] = {}
        for r in self.withdrawn:
            slot = (r.case_index, r.attempt)
            if slot not in recorded:
                next_retake[slot] = max(next_retake.get(slot, 0), r.retake + 1)
        for s in self.in_flight:
            next_retake[(s.case_index, s.attempt)] = s.retake
        return next_retake

    def progress(self) -> Progress:
        """A Progress filled with the stored records, as the faces read a live one."""
        progress = Progress([c.name for c in self.cases], self.settings.attempts, self.settings.k)
        progress.add(self.records)
        progress.stop_reasons = self.stop_reasons
        return progress

    def reading(self) -> EvaluationReading:
        """Its one reading (``core.reading``), as every face and export renders it."""
        return EvaluationReading(
            self.id, self.settings, self.progress(), self.status_reason, lambda: self.records
        )

    def figures(self) -> list[CaseFigures]:
        return self.progress().all_figures()
