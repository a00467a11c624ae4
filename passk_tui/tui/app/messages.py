"""What the screens ask of the app: posted by a screen, bubbled to and handled by ``PasskApp``.

A screen never imports the app; it says what the user asked for and the app
decides what happens: what concerns the run (start, resume, extend, cancel) it hands
to its run controller (``RunController.take``), which owns the evaluation worker.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from passk_tui.core.inputs.settings import Settings
from passk_tui.core.inputs.target_list import MatrixTarget
from passk_tui.tui.screens.configure.form import FormValues
from passk_tui.tui.view import EvaluationView


@dataclass
class RunRequested(Message):
    """Start an evaluation with these settings (``remember``: the form to save as last used;
    ``baseline``: a version to run beside it and compare against)."""

    settings: Settings
    key: str | None
    remember: FormValues | None = None
    baseline: int | None = None
    #: Several targets (a matrix), the first compared with each other; empty: one.
    targets: tuple[MatrixTarget, ...] = ()


class DemoRequested(Message):
    """Run the bundled demo."""


@dataclass
class ResumeRequested(Message):
    """Continue a stored evaluation (an id or a unique prefix)."""

    ref: str


class CancelRequested(Message):
    """Stop the running evaluation: nothing new starts, the Runs in flight are cancelled."""


class ConfigureRequested(Message):
    """Back to the Configure screen (made then, when the app started straight into a run)."""


class HistoryRequested(Message):
    """Open the stored evaluations."""


@dataclass
class CaseOpened(Message):
    """Show one case's attempts."""

    view: EvaluationView
    case_index: int


@dataclass
class AttemptsOpened(Message):
    """Show some of one case's attempts (an answer or error group's), ``about`` saying which."""

    view: EvaluationView
    case_index: int
    attempts: tuple[int, ...]
    about: str


@dataclass
class ResultsOpened(Message):
    """Show an evaluation's results table."""

    view: EvaluationView


@dataclass
class StoredEvaluationOpened(Message):
    """Show a stored evaluation's results (the live view when it is the one running here)."""

    evaluation_id: str


@dataclass
class CompareRequested(Message):
    """Compare two stored evaluations: ``baseline`` is A, ``candidate`` B."""

    baseline: str
    candidate: str


@dataclass
class MatrixRequested(Message):
    """Show the matrix the stored evaluation ``ref`` ran in."""

    ref: str


@dataclass
class ExtendRequested(Message):
    """Give a stored evaluation more attempts: every case up to ``attempts`` (a resume that grows)."""

    ref: str
    attempts: int
