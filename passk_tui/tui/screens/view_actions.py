"""The keys through which the Case and Results screens open the new views, as base classes.

A screen takes them by deriving from ``CaseViews`` or ``ResultsViews`` instead of
``Screen``: their bindings merge with the screen's own. They read ``self.view``
(and on a case, ``self.case_index`` and the attempts table's cursor). Rerunning
the failing cases is the app's to start: the screen posts ``RerunRequested``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.answers import shown_answer
from passk_tui.core.render.reproduce import headless_command
from passk_tui.core.text.amounts import counted

if TYPE_CHECKING:
    from passk_tui.core.run.cases import Case
    from passk_tui.tui.view import EvaluationView


@dataclass
class RerunRequested(Message):
    """Start a new evaluation with these settings (the failing cases' file already written)."""

    settings: Settings


class CaseViews(Screen[None]):
    """A case's answers grouped, a diff of two attempts, its curve over k, copying."""

    view: EvaluationView
    case_index: int

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "A",
            "distinct_answers",
            "Group answers",
            show=False,
            tooltip="The case's distinct answers with their counts",
        ),
        Binding(
            "D",
            "diff_attempts",
            "Diff two attempts",
            show=False,
            tooltip="First passing against first failing answer, line by line",
        ),
        Binding("g", "curve", "pass@k curve", show=False, tooltip="pass@k and pass^k for every k"),
        Binding(
            "c", "copy", "Copy…", show=False, tooltip="The answer, error or ids of the attempt"
        ),
    ]

    def attempt_under_cursor(self) -> int | None:
        """The attempt under the attempts list's cursor: the screen's to say."""
        raise NotImplementedError

    def action_distinct_answers(self) -> None:
        from passk_tui.tui.screens.answers import AnswersScreen

        self.app.push_screen(AnswersScreen(self.view, self.case_index))

    def action_diff_attempts(self) -> None:
        from passk_tui.tui.screens.answer_diff import DiffScreen

        self.app.push_screen(DiffScreen(self.view, self.case_index))

    def action_curve(self) -> None:
        from passk_tui.tui.screens.curve import CurveScreen

        self.app.push_screen(CurveScreen(self.view, self.case_index))

    def action_copy(self) -> None:
        from passk_tui.tui.dialogs.copy import CopyScreen

        attempt = self.attempt_under_cursor()
        if attempt is None:
            return
        record = next(
            (r for r in self.view.progress.records[self.case_index] if r.attempt == attempt), None
        )
        if record is None:
            self.notify(f"Attempt {attempt} has not finished: nothing to copy.")
            return
        choices = [
            (what, text)
            for what, text in (
                ("answer", shown_answer(record.output) if record.output is not None else None),
                ("error", record.error),
                ("check's reason", record.reason),
                ("run id", record.run_id),
                ("turn id", record.turn_id),
            )
            if text
        ]
        if not choices:
            self.notify(f"Attempt {attempt} has no answer, error or id to copy.")
            return
        self.app.push_screen(CopyScreen(choices, f"attempt {attempt}"))


class ResultsViews(Screen[None]):
    """Errors grouped, the forest of intervals, costs, export, copying, rerunning the failing."""

    view: EvaluationView

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "E",
            "errors",
            "Errors by kind",
            show=False,
            tooltip="Every errored attempt grouped by its error",
        ),
        Binding("i", "forest", "Intervals plot", show=False, tooltip="Every case's interval"),
        Binding(
            "d", "costs", "Durations, tokens", show=False, tooltip="Per case: time, tokens, cost"
        ),
        Binding("x", "export", "Export…", show=False, tooltip=".md .json .csv .xml .html"),
        Binding("c", "copy", "Copy…", show=False, tooltip="The command that reruns this, the id"),
        Binding(
            "R",
            "rerun_failing",
            "Rerun failing",
            show=False,
            tooltip="The cases with a wrong or errored attempt, as a new evaluation",
        ),
    ]

    def action_errors(self) -> None:
        from passk_tui.tui.screens.errors import ErrorsScreen

        self.app.push_screen(ErrorsScreen(self.view))

    def action_forest(self) -> None:
        from passk_tui.tui.screens.forest import ForestScreen

        self.app.push_screen(ForestScreen(self.view))

    def action_costs(self) -> None:
        from passk_tui.tui.screens.costs import CostsScreen

        self.app.push_screen(CostsScreen(self.view))

    def action_export(self) -> None:
        from passk_tui.tui.dialogs.export import ExportScreen

        self.app.push_screen(ExportScreen(self.view))

    def action_copy(self) -> None:
        from passk_tui.tui.dialogs.copy import CopyScreen

        settings = self.view.settings
        note = "The command never holds the key: it reads PASSK_KEY." if settings.stack else ""
        choices = [
            ("headless command", headless_command(settings)),
            ("evaluation id", self.view.evaluation_id),
            ("resume command", f"passk-tui --resume {self.view.evaluation_id}"),
        ]
        self.app.push_screen(CopyScreen(choices, note))

    def action_rerun_failing(self) -> None:
        """Ask, then write the failing cases beside the store and have the app run them."""
        from passk_tui.core.run.rerun import failing_cases
        from passk_tui.tui.dialogs.confirm import ConfirmScreen

        if self.view.running or not self.view.cases:
            self.notify("Rerun once the evaluation has ended.", severity="warning")
            return
        chosen = failing_cases(self.view.cases, self.view.progress.all_figures())
        if not chosen:
            self.notify("No case has a wrong or errored attempt: nothing to rerun.")
            return
        names = ", ".join(c.name for c in chosen[:5]) + (" …" if len(chosen) > 5 else "")
        question = (
            f"Rerun the {counted(len(chosen), 'case')} with a wrong or "
            f"errored attempt ({names}) as a new evaluation, same settings?"
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._rerun(chosen)

        self.app.push_screen(ConfirmScreen(question, yes="Rerun", no="Cancel"), answered)

    def _rerun(self, chosen: list[Case]) -> None:
        from passk_tui.core.run.rerun import write_rerun
        from passk_tui.store.connection import data_dir

        try:
            settings = write_rerun(
                self.view.evaluation_id, self.view.settings, chosen, data_dir() / "reruns"
            )
        except InputError as exc:
            self.notify(str(exc), title="Cannot rerun", severity="error")
            return
        self.post_message(RerunRequested(settings))
