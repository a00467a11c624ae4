"""The headless face: flags -> engine -> plain table on stdout, progress on stderr, exit codes.

The run's machinery (the engine, the live progress, asyncio) is imported by ``run_headless``
alone: ``report_end`` serves an import too, which never runs anything."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from passk_tui.cli.output import fail, interrupted, print_out, resume_hint, say, stopped_exit
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.evaluations.reading import reading_of
from passk_tui.evaluations.recorded import RecordedEvaluation


def run_headless(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Validate everything, run (or resume), print the table; the return value is the exit status."""
    import asyncio
    import sys

    from passk_tui.cli.live import run_live
    from passk_tui.core.run.engine import Interleaved
    from passk_tui.core.run.gc_thresholds import relaxed_gc
    from passk_tui.evaluations.new import new_evaluation
    from passk_tui.evaluations.resume import resume_evaluation
    from passk_tui.evaluations.settings_text import resume_changes, settings_from_args, stack_key

    if _may_be_matrix(args):
        from passk_tui.cli.matrix import is_matrix, run_matrix

        if is_matrix(args):
            return run_matrix(args, env)
    if _may_be_paired(args):
        from passk_tui.cli.pair import run_if_paired

        paired = run_if_paired(args, env)
        if paired is not None:
            return paired
    evaluation: RecordedEvaluation | None = None
    stopped_by: list[int] = []
    try:
        export_paths: list[Path] = []
        if args.export:
            # reports/ only when an export is asked for: a plain run prints core's table.
            from passk_tui.reports.export import check_export_path

            export_paths = [check_export_path(text) for text in args.export]
        key = stack_key(args, env)
        if args.resume:
            resumed = resume_evaluation(args.resume, key, resume_changes(args))
            evaluation = resumed.evaluation
            for warning in resumed.warnings:
                say(f"warning: {warning}")
            # A done evaluation is only shown; one with every attempt in is marked done by
            # running it, and so is a "done" one with attempts missing (batches an older
            # passk-tui dropped when a value could not be stored): resume repairs it.
            status = "done" if resumed.shown_only else None
        else:
            evaluation = new_evaluation(settings_from_args(args, env), key)
            for warning in evaluation.warnings:
                say(f"warning: {warning}")
            status = None
        if status is None:
            with relaxed_gc():
                (status,) = asyncio.run(run_live(Interleaved([evaluation]), sys.stderr, stopped_by))
    except (InputError, RunError) as exc:
        # Bad input, or the target refused before any Run started: one line, nothing to resume.
        return fail(exc)
    except KeyboardInterrupt:
        return interrupted(evaluation.evaluation_id if evaluation is not None else None)
    return report_end(evaluation, status, args, export_paths, stopped_exit(stopped_by))


def _may_be_matrix(args: argparse.Namespace) -> bool:
    """Whether the run may be a matrix: only then is its code imported."""
    return bool(args.resume) or any("," in (text or "") for text in (args.version, args.agent))


def _may_be_paired(args: argparse.Namespace) -> bool:
    """Whether the run may be a --baseline pair: only then is the comparison's code imported."""
    return args.baseline is not None or bool(args.resume) or bool(args.fail_on_regression)


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
