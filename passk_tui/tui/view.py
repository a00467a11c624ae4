"""What the run, results and case screens read: one evaluation, live or loaded from the store."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from passk_tui.core.cases import Case
from passk_tui.core.engine import Evaluation
from passk_tui.core.figures import CaseFigures
from passk_tui.core.progress import Progress
from passk_tui.core.settings import Settings
from passk_tui.core.table import below_gate


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
    #: Why the evaluation stopped before it could run (prepare raised): set by the app.
    failed_with: str | None = None
    #: False in tests and snapshots: rates, clocks and durations show as dashes.
    show_timing: bool = True

    @classmethod
    def running_here(cls, evaluation: Evaluation) -> EvaluationView:
        return cls(
            evaluation.evaluation_id,
            evaluation.settings,
            evaluation.progress,
            evaluation.cases,
            evaluation,
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

    def failing(self) -> list[CaseFigures]:
        """The cases under the --require gate (empty without a gate)."""
        if self.settings.require is None:
            return []
        return below_gate(self.progress.all_figures(), self.settings.require)
