"""How a finished evaluation ends on the terminal: the table, the lines under it, the gate's
exit status, then the exports. Shared by a run (``cli/run.py``) and an import
(``cli/import_logs.py``), apart from the run's machinery: an import never loads the pool,
the targets or asyncio."""

from __future__ import annotations

import argparse
from pathlib import Path

from passk_tui.cli.output import fail, print_out, resume_hint, say
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.evaluations.reading import reading_of
from passk_tui.evaluations.recorded import RecordedEvaluation


def report_end(
    evaluation: RecordedEvaluation,
    status: str,
    args: argparse.Namespace,
    export_paths: list[Path],
    cancelled: int = ExitCode.CANCELLED,
) -> int:
    """The table and the gate, then the export, and how to resume when the evaluation did not finish.

    The exports come last so that a failed one (a full disk) costs only itself:
    the results are on the screen, the failure is one line (the other exports are
    still written), and the exit status is the gate's, or 5 when only an export failed.
    """
    if evaluation.store_error:
        say(f"warning: {evaluation.store_error}")
    if status == "failed":
        code = fail(RunError(evaluation.error or "the evaluation failed"))
        resume_hint(evaluation.evaluation_id)
    else:
        reading = reading_of(evaluation)
        if not print_out(reading.table(), evaluation.evaluation_id):
            return ExitCode.CANNOT_RUN
        for line in reading.error_lines():
            say(line)
        if reading.refused_line is not None:
            say(f"warning: {reading.refused_line}")
        if reading.reruns_line is not None:
            say(reading.reruns_line)
        for line in reading.interval_lines():
            say(line)
        for line in reading.judge_lines():
            say(line)
        if status == "cancelled":
            say(reading.not_run_line())
            resume_hint(evaluation.evaluation_id)
            code = cancelled
        else:
            for line in reading.gate_lines(args.require):
                say(line)
            if evaluation.settings.price is not None:
                say(f"{reading.cost_line()}")
            budget = reading.budget_line()
            if budget is not None:
                say(budget)
            if reading.burst is not None:
                say(f"warning: {reading.burst.warning()}")
            code = reading.exit_code
    for path in export_paths:
        code = _export(evaluation, path, evaluation.settings.confidence, code)
    return code


def _export(evaluation: RecordedEvaluation, path: Path, confidence: float | None, code: int) -> int:
    """Write the export; a failure is one line and exit 5 unless the status already says more."""
    from passk_tui.reports.export import export  # reports/ only on --export

    try:
        written = export(evaluation.store.load(evaluation.evaluation_id), path, confidence)
    except (InputError, RunError) as exc:
        say(f"export failed: {exc}")
        return code or ExitCode.EXPORT_FAILED
    except RecursionError:
        say(f"export failed: --export {path}: an answer nests too deep")
        return code or ExitCode.EXPORT_FAILED
    say(f"wrote {written}")
    return code
