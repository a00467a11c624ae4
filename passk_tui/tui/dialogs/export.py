"""A small dialog: write the open evaluation to a file, the format following the suffix."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.view import EvaluationView


def export_suffixes() -> tuple[str, ...]:
    """The suffixes the store's export writes (read from it, so a new format shows up here)."""
    from passk_tui.reports.export import SUFFIXES

    return tuple(SUFFIXES)


def default_export_path(view: EvaluationView, folder: Path) -> Path:
    return folder / f"passk-{view.evaluation_id}.md"


def export_view(view: EvaluationView, path: Path) -> Path:
    """Export what the store holds of the view's evaluation (live without a store: its snapshot)."""
    from passk_tui.evaluations.recorded import RecordedEvaluation
    from passk_tui.reports.export import export
    from passk_tui.store import Store

    evaluation = view.evaluation
    if isinstance(evaluation, RecordedEvaluation):
        return export(evaluation.store.load(view.evaluation_id), path)
    if evaluation is not None:
        return export(evaluation, path)
    with Store.open() as opened:
        return export(opened.load(view.evaluation_id), path)


class ExportScreen(ModalScreen[None]):
    """Type a path; Enter writes it (.md, .json, .csv, .xml, or any other format export knows)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", tooltip="Close without writing")
    ]

    def __init__(self, view: EvaluationView) -> None:
        super().__init__(classes="view-dialog")
        self.view = view

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(f"Export evaluation {terminal_safe(self.view.evaluation_id)}"),
                classes="view-line",
            )
            yield Input(str(default_export_path(self.view, Path.cwd())), id="export-path")
            yield Static(
                f"The format follows the suffix: {', '.join(export_suffixes())}. Enter writes.",
                classes="view-note",
            )
            yield Static(id="export-problem", classes="view-note")

    @on(Input.Submitted, "#export-path")
    def _write(self, event: Input.Submitted) -> None:
        try:
            written = export_view(self.view, Path(event.value.strip()).expanduser())
        except (InputError, RunError) as exc:
            self.query_one("#export-problem", Static).update(Text(terminal_safe(str(exc))))
            return
        self.app.notify(f"Written to {written}")
        self.dismiss()
