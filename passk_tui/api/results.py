"""``passk_tui.Result``: an evaluation's figures as typed values, read as every face reads them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

from passk_tui.core.errors import ExitCode, InputError
from passk_tui.evaluations.reading import (
    CaseFigures,
    CaseReading,
    EvaluationReading,
    FigureIntervals,
    GateVerdict,
)

#: The figures ``CaseResult.interval`` knows.
Figure = Literal["pass_at_1", "pass_at_k", "pass_hat_k"]
FIGURES = ("pass_at_1", "pass_at_k", "pass_hat_k")


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case: its counts, its exact figures (None where its attempts cannot define one yet),
    its gate verdict (None without ``require``) and its intervals."""

    name: str
    passed: int
    wrong: int
    errored: int
    attempts: int
    pass_at_1: Fraction | None
    pass_at_k: Fraction | None
    pass_hat_k: Fraction | None
    all_passed: bool | None
    gate: GateVerdict | None
    intervals: FigureIntervals = field(repr=False)

    def interval(self, figure: Figure = "pass_at_k") -> tuple[float, float] | None:
        """``(low, high)`` of ``figure`` at the evaluation's level; None where it is undefined."""
        if figure not in FIGURES:
            raise InputError(f"interval: no figure {figure!r} (one of {', '.join(FIGURES)})")
        interval = getattr(self.intervals, figure)
        return None if interval is None else (interval.low, interval.high)

    @classmethod
    def of(cls, reading: CaseReading) -> CaseResult:
        f: CaseFigures = reading.figures
        return cls(
            f.name,
            f.passed,
            f.wrong,
            f.errored,
            f.n,
            f.pass_at_1,
            f.pass_at_k,
            f.pass_hat_k,
            f.all_passed,
            reading.verdict,
            reading.intervals,
        )


@dataclass(frozen=True, slots=True)
class Result:
    """An evaluation's outcome: its cases in file order, the gate, the exit status the CLI
    would give, and ``table()``, the CLI's plain table."""

    id: str
    agent: str
    version: int
    k: int
    status: Literal["done", "cancelled"]
    cases: tuple[CaseResult, ...]
    gate: GateVerdict | None
    """``fail`` when any case fails, else ``undecided`` when any is, else ``pass``; None
    without ``require``."""
    exit_status: int
    level: float
    """The level of every interval (``confidence``, else 0.95)."""
    method: str
    """How the intervals are made: ``clopper-pearson``, or an anytime-valid one."""
    stored: bool
    """Whether it is in the store (History, ``--resume``, ``compare``): not with store=False."""
    _table: str = field(repr=False)
    baseline: Result | None = field(default=None, repr=False)
    """With ``baseline=V``: version V's own Result, run beside this one."""
    _comparison: str | None = field(default=None, repr=False)
    targets: tuple[Result, ...] = field(default=(), repr=False)
    """A matrix (a list of agents, or of versions): every target's own Result, in order, the
    first (this one's figures) included; ``table()`` is then the matrix as the CLI prints it
    and ``exit_status`` every target's gate. Empty for one target."""
    judge: tuple[str, ...] = ()
    """What the judge said of itself, as stderr says it: a line per judge (votes per answer,
    unanimity, Fleiss' kappa) and its cost; () when no case has a `judge` check."""

    def table(self) -> str:
        """The plain table as the CLI prints it: ``print(result.table())`` writes its stdout."""
        return self._table

    def comparison(self) -> str | None:
        """With ``baseline=V``: the comparison as ``passk-tui compare`` prints it (the baseline
        as A); None without a baseline."""
        return self._comparison

    def beside(self, baseline: Result, comparison: str) -> Result:
        """This Result with the baseline's beside it and their comparison."""
        return replace(self, baseline=baseline, _comparison=comparison)

    def of_matrix(self, targets: tuple[Result, ...], table: str, exit_status: int) -> Result:
        """The first target's Result as a matrix's: every target beside it, the matrix's table
        and exit status."""
        return replace(self, targets=targets, _table=table, exit_status=exit_status)

    @property
    def labels(self) -> list[str]:
        """A matrix's targets as its table names them (``v2``, ``calc``, ``calc v2``)."""
        from passk_tui.core.inputs.target_list import MatrixTarget, target_labels

        return target_labels([MatrixTarget(t.agent, t.version) for t in self.targets])

    @classmethod
    def of(
        cls, reading: EvaluationReading, status: Literal["done", "cancelled"], stored: bool
    ) -> Result:
        """Render the evaluation's reading as the headless face does (``cli/run.py``): same table."""
        settings = reading.settings
        return cls(
            reading.evaluation_id,
            settings.agent,
            settings.version,
            settings.k,
            status,
            tuple(CaseResult.of(case) for case in reading.reading.cases),
            reading.gate,
            reading.exit_code if status == "done" else int(ExitCode.CANCELLED),
            reading.reading.level,
            reading.reading.method.name,
            stored,
            reading.table().removesuffix("\n"),
            judge=tuple(reading.judge_lines()),
        )
