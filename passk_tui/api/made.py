"""What ``evaluate`` runs: one evaluation made or resumed, or a baseline beside it (``baseline=V``).

The same calls the CLI makes (``evaluations.new``, ``.resume`` and ``.pairing``), so an
evaluation from Python is stored, linked and resumed exactly as one from the command line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from passk_tui.api.results import Result
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE, parse_exact_confidence
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.inputs.target_list import MatrixTarget
from passk_tui.core.render.compare_text import plain_comparison
from passk_tui.core.run.engine import Interleaved, Status
from passk_tui.core.run.events import Event
from passk_tui.evaluations.judging import JudgeCallables
from passk_tui.evaluations.matrix import MatrixRun, find_group, new_matrix, resume_matrix
from passk_tui.evaluations.matrix_reading import MatrixReading
from passk_tui.evaluations.new import new_evaluation
from passk_tui.evaluations.pairing import PairedRun, find_pair, new_pair, resume_pair
from passk_tui.evaluations.reading import reading_of
from passk_tui.evaluations.recorded import RecordedEvaluation, TargetFactory
from passk_tui.evaluations.resume import resume_evaluation
from passk_tui.store import Store


@dataclass
class Made:
    """The evaluations to run together (the baseline first), and what they warn of."""

    evaluations: list[RecordedEvaluation]
    shown_only: bool
    warnings: list[str]
    paired: PairedRun | None = None
    matrix: MatrixRun | None = None
    running: Interleaved = field(init=False)

    def __post_init__(self) -> None:
        group = self.paired or self.matrix
        self.running = group.running if group else Interleaved(self.evaluations)

    @property
    def error(self) -> str:
        """Why it failed: the error of the one whose failure stopped the other."""
        cause = self.running.cause or self.evaluations[-1]
        return cause.error or "the evaluation failed"

    @property
    def level(self) -> Fraction:
        """The comparison's level: ``confidence``, else 0.95, exact as ``compare`` reads it."""
        confidence = self.evaluations[-1].settings.confidence
        if confidence is None:
            return DEFAULT_CONFIDENCE
        return parse_exact_confidence(str(confidence))

    def result(self, status: Status, stored: bool) -> Result:
        """The candidate's Result; with a baseline, the baseline's and the comparison too."""
        assert status != "failed"
        if self.matrix is not None:
            return self._matrix_result(self.matrix, status, stored)
        candidate = _result(self.evaluations[-1], status, stored)
        if self.paired is None:
            return candidate
        compared = self.paired.compared(self.level)
        return candidate.beside(
            _result(self.evaluations[0], status, stored),
            plain_comparison(compared.comparison).removesuffix("\n"),
        )

    def matrix_reading(self) -> MatrixReading:
        """The matrix as stored now, at the comparison's level."""
        assert self.matrix is not None
        return self.matrix.reading(self.level)

    def _matrix_result(self, matrix: MatrixRun, status: Status, stored: bool) -> Result:
        """The first target's Result with every target's beside it, the matrix's table and
        every target's gate (``evaluations.matrix_reading``, as the CLI reads it)."""
        targets = tuple(_result(e, status, stored) for e in matrix.members)
        reading = self.matrix_reading()
        code = reading.exit_code() if status == "done" else targets[0].exit_status
        return targets[0].of_matrix(targets, reading.table().removesuffix("\n"), code)


def _result(evaluation: RecordedEvaluation, status: Status, stored: bool) -> Result:
    assert status != "failed"
    return Result.of(reading_of(evaluation), status, stored=stored)


def made(
    settings: Settings | None,
    changes: dict[str, object],
    key: str | None,
    target_for: TargetFactory | None,
    store: Store,
    *,
    resume: str | None,
    baseline: int | None,
    on_event: Callable[[Event], None],
    targets: Sequence[MatrixTarget] = (),
    judges: JudgeCallables | None = None,
) -> Made:
    """Make (or resume) what the keywords ask for, kept in ``store``; nothing runs yet."""
    both: Callable[[object, Event], None] = lambda role, event: on_event(event)  # noqa: E731
    if resume is None:
        assert settings is not None
        if targets:
            matrix = new_matrix(settings, targets, key, both, store=store, target_for=target_for)
            return Made(list(matrix.members), False, matrix.warnings, matrix=matrix)
        if baseline is not None:
            paired = new_pair(settings, baseline, key, both, store=store)
            return _pair(paired)
        one = new_evaluation(
            settings, key, on_event, store=store, target_for=target_for, judges=judges
        )
        return Made([one], False, one.warnings)
    group = find_group(resume, store=store) if target_for is None else None
    if group is not None:
        matrix = resume_matrix(group, key, changes, both, store=store)
        return Made(list(matrix.members), matrix.shown_only, matrix.warnings, matrix=matrix)
    pair = find_pair(resume, store=store) if target_for is None else None
    if pair is not None:
        return _pair(resume_pair(pair, key, changes, both, baseline_version=baseline, store=store))
    resumed = resume_evaluation(
        resume, key, changes, on_event, store=store, target_for=target_for, judges=judges
    )
    return Made([resumed.evaluation], resumed.shown_only, resumed.warnings)


def _pair(paired: PairedRun) -> Made:
    return Made([paired.baseline, paired.candidate], paired.shown_only, paired.warnings, paired)
