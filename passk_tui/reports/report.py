"""What every export shows, prepared once: per case its figures, intervals, verdict and first failure.

The formats (``export.py``, ``export_junit.py``, and later an HTML report) only
lay this out; none of them computes a figure or decides a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.reading.vocabulary import (
    CaseCosts,
    CaseFigures,
    CaseReading,
    ConversationSpread,
    IntervalChoice,
    Reading,
    StopReason,
)
from passk_tui.core.run.cases import Case
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.text.figure_text import how_read
from passk_tui.reports.json_text import compact_json
from passk_tui.store.models import StoredEvaluation

#: The most of one answer or error an export quotes (answers can be megabytes).
QUOTE_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class CaseReport:
    """One case as the exports show it."""

    case: Case
    reading: CaseReading
    #: Wall seconds of its attempts, summed.
    duration: float
    #: Its first attempt (by number) that did not pass, or None.
    first_failure: AttemptRecord | None
    #: Adaptive: why it stopped getting attempts (None: fixed n, or still sampled).
    stop_reason: StopReason | None = None
    #: The case read on its own terms when they are not the evaluation's (a pytest marker's
    #: k, gate and level): its verdict is ``reading.verdict``; None: read as the evaluation.
    own: Reading | None = None

    @property
    def figures(self) -> CaseFigures:
        return self.reading.figures


@dataclass(frozen=True, slots=True)
class SessionGate:
    """The suite's gate when its tests each have their own: what pytest said of them."""

    #: ``--require`` as text, or ``per test`` when the tests' gates differ.
    require: str
    #: ``point`` or ``confident`` (the tests' kind), or ``per test`` when they differ.
    kind: str
    #: pytest's exit status: 1 when any marked test failed or is undecided, else 0.
    exit_status: int


@dataclass(frozen=True, slots=True)
class Report:
    """An evaluation read for export: the stored evaluation, its one reading, the gate's
    reading at the report's level, a report per case."""

    stored: StoredEvaluation
    evaluation: EvaluationReading
    """The evaluation's one reading (``core.reading``): its method, costs, conversations, judge."""
    reading: Reading
    cases: tuple[CaseReport, ...]
    session: SessionGate | None = None
    """A pytest session's gate, its tests' own (``api/pytest_report.py``); None: the reading's."""

    @property
    def intervals(self) -> IntervalChoice:
        """The evaluation's interval method and why."""
        return self.evaluation.choice

    @property
    def costs(self) -> Sequence[CaseCosts]:
        """Per case, in case order: tokens, durations and money."""
        return self.evaluation.costs

    @property
    def conversations(self) -> Sequence[ConversationSpread]:
        """Per case, in case order: turns, tool calls and steps per attempt (p50 / p95)."""
        return self.evaluation.conversations

    @property
    def duration(self) -> float:
        return sum(c.duration for c in self.cases)

    @property
    def per_test(self) -> bool:
        """Whether cases are read on their own terms (a pytest session's marked tests)."""
        return any(c.own is not None for c in self.cases)

    @property
    def gate_kind(self) -> str:
        """Which gate gave the verdicts: ``point``, ``confident``, ``per test`` or ``none``."""
        return self.session.kind if self.session is not None else self.reading.gate_kind

    @property
    def exit_status(self) -> int:
        """The exit status the run gave: pytest's for a session, else the gate's."""
        return self.session.exit_status if self.session is not None else self.reading.exit_code


def build_report(source: StoredEvaluation | Evaluation, confidence: float | None = None) -> Report:
    """Read ``source`` at ``confidence`` (None: as its settings say, ``core.run.sampling``), by the
    evaluation's own method (anytime-valid once n was chosen by looking)."""
    stored = source if isinstance(source, StoredEvaluation) else snapshot(source)
    evaluation = stored.reading()
    reading = evaluation.read_at(confidence)
    durations = [0.0] * len(stored.cases)
    failures: list[AttemptRecord | None] = [None] * len(stored.cases)
    for r in sorted(stored.records, key=lambda r: (r.case_index, r.attempt)):
        durations[r.case_index] += r.duration
        if r.outcome is not Outcome.PASSED and failures[r.case_index] is None:
            failures[r.case_index] = r
    cases = tuple(
        CaseReport(case, case_reading, durations[i], failures[i], stored.stop_reasons.get(i))
        for i, (case, case_reading) in enumerate(zip(stored.cases, reading.cases, strict=True))
    )
    return Report(stored, evaluation, reading, cases)


def read_as(c: CaseReport, report: Report) -> tuple[Reading, CaseReading]:
    """The reading whose k, gate and level ``c``'s verdict follows (its own, else the
    evaluation's), and the case as read there (its figures at that k, intervals at that level)."""
    if c.own is not None:
        return c.own, c.own.cases[0]
    return report.reading, c.reading


@dataclass(frozen=True, slots=True)
class TableGroup:
    """Cases read one way (one k, gate and level), as one results table shows them."""

    #: The way in a marker's words (``k=3, require=0.8``) when the report has several; else None.
    heading: str | None
    #: The group's k, gate and level; its ``cases`` are the group's, each at that k and level.
    reading: Reading
    cases: tuple[CaseReport, ...]


def table_groups(report: Report) -> list[TableGroup]:
    """The report's cases as their tables show them: one group read as the evaluation, or, for
    a pytest session's tests, one per way of reading them, each row under its own pass@k
    (as the session's terminal summary groups them)."""
    if not report.per_test:
        return [TableGroup(None, report.reading, report.cases)]
    grouped: dict[tuple[object, ...], list[CaseReport]] = {}
    for c in report.cases:
        terms = read_as(c, report)[0]
        grouped.setdefault((terms.k, terms.require, terms.confident, terms.level), []).append(c)
    groups = []
    for members in grouped.values():
        terms = read_as(members[0], report)[0]
        confidence = terms.level if terms.confident else None
        heading = how_read(terms.k, terms.require, confidence) if len(grouped) > 1 else None
        cases = tuple(replace(c, reading=read_as(c, report)[1]) for c in members)
        groups.append(
            TableGroup(heading, replace(terms, cases=tuple(c.reading for c in cases)), cases)
        )
    return groups


def snapshot(evaluation: Evaluation) -> StoredEvaluation:
    """A live Evaluation in the stored shape, for exporting one that has no store behind it."""
    progress = evaluation.progress
    records = sorted(
        (r for rows in progress.records for r in rows), key=lambda r: (r.case_index, r.attempt)
    )
    return StoredEvaluation(
        id=evaluation.evaluation_id,
        created=datetime.now(UTC).timestamp() - progress.elapsed(),
        finished=None,
        status=evaluation.status or "running",
        error=evaluation.error,
        settings=evaluation.settings,
        cases=evaluation.cases,
        cases_sha256="",
        records=records,
        stop_reasons=dict(progress.stop_reasons),
        definition=evaluation.definition,  # a recorded evaluation's
        status_reason=evaluation.status_reason,
    )


def iso_time(seconds: float | None) -> str | None:
    """Every time in every export: ISO 8601 in UTC, to the millisecond."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def failure_text(record: AttemptRecord) -> str:
    """What went wrong in one attempt, for a person: the answer and why it failed, or the error."""
    if record.outcome is Outcome.WRONG:
        why = f"; why: {record.reason}" if record.reason else ""
        return f"attempt {record.attempt} wrong: answer {quote(_answer(record))}{why}"
    return f"attempt {record.attempt} errored ({record.status}): {quote(record.error or '')}"


def _answer(record: AttemptRecord) -> str:
    """The answer exactly as given; JSON text (however deep) for a non-string."""
    output = record.output
    return output if isinstance(output, str) else compact_json(output)


def quote(text: str) -> str:
    """``text`` bounded to QUOTE_LIMIT characters, saying how long it was when cut."""
    if len(text) <= QUOTE_LIMIT:
        return repr(text)
    return f"{text[:QUOTE_LIMIT]!r}... ({len(text):,} characters in all)"
