"""``--export`` in the app: what the store holds of the run that just ended, written to each
path given, as headless writes it (a pair: its comparison; a matrix: its own)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passk_tui.core.errors import InputError, RunError

if TYPE_CHECKING:
    from textual.app import App

    from passk_tui.core.run.engine import Evaluation
    from passk_tui.tui.matrix_run import MatrixShown
    from passk_tui.tui.pair_run import PairShown


def export_ended(
    paths: Sequence[Path],
    evaluation: Evaluation | None,
    pair: PairShown | None,
    matrix: MatrixShown | None,
    app: App[Any],
) -> None:
    """Write the ended run to every path (``evaluation``: the one shown, of a pair its
    candidate); each written, or why not, said in ``app``'s notifications."""
    from passk_tui.evaluations.recorded import RecordedEvaluation

    # A bare evaluation (no store behind it) has nothing stored to export.
    if not paths or not isinstance(evaluation, RecordedEvaluation):
        return
    from passk_tui.reports.compare_export import export_comparison
    from passk_tui.reports.export import export

    store = evaluation.store
    for path in paths:
        try:
            if matrix is not None:
                from passk_tui.reports.matrix_export import export_matrix

                export_matrix(matrix.reading(), path)
            elif pair is not None:
                export_comparison(pair.compare(), path)
            else:
                export(store.load(evaluation.evaluation_id), path)
        except (InputError, RunError) as exc:
            app.notify(str(exc), title="Export failed", severity="error", timeout=15)
        else:
            app.notify(f"Results written to {path}")
