"""A matrix headless (``--version 1,2,3``, ``--agent a,b``): every target in one go, then the
matrix on stdout.

Exit status: every target's ``--require`` gate counts (the gate is the same promise for
each); 1 when any target fails it, or when ``--fail-on-regression`` finds a case (or a
suite) of another target regressed against the first; else 4 when a confident gate
leaves some case of some target undecided; else 0. A matrix that could not run, was
stopped or failed exits as a single evaluation does (2, 3, 130, ...).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

from passk_tui.cli.live import failed_together, run_together, together_line
from passk_tui.cli.output import (
    budget_lines,
    export_said,
    fail,
    interrupted,
    print_out,
    resume_hint,
    say,
    stopped_exit,
)
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE, parse_exact_confidence
from passk_tui.evaluations.matrix import (
    MatrixRun,
    find_group,
    given_targets,
    new_matrix,
    resume_matrix,
)
from passk_tui.evaluations.matrix_reading import MatrixReading
from passk_tui.evaluations.settings_text import (
    BASELINE_REFUSED,
    checked_from_args,
    flag,
    matrix_resume_changes,
    stack_key,
)
from passk_tui.store.groups import Group


def is_matrix(args: argparse.Namespace) -> bool:
    """Whether the flags ask for several targets (a comma in --version or --agent), or resume
    an evaluation that ran in a matrix."""
    listed = any("," in (text or "") for text in (args.version, args.agent))
    return listed or (bool(args.resume) and _resumed_group(args.resume) is not None)


def _resumed_group(ref: str) -> Group | None:
    """The group ``--resume`` names; None when it names one evaluation alone, or none (which
    the single path then says)."""
    try:
        return find_group(ref)
    except (InputError, RunError):
        return None


def run_matrix(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Run (or resume) the matrix, print it, exit by every target's gate."""
    matrix: MatrixRun | None = None
    stopped_by: list[int] = []
    try:
        export_paths = [_check_export(text) for text in args.export or ()]
        level = flag("confidence", args.confidence, parse_exact_confidence, DEFAULT_CONFIDENCE)
        key = stack_key(args, env)
        if args.baseline is not None:
            raise InputError(BASELINE_REFUSED)
        group = _resumed_group(args.resume) if args.resume else None
        if group is not None:
            changes = matrix_resume_changes(args)
            matrix = resume_matrix(
                group, key, changes, targets=given_targets(args.agent, args.version, group)
            )
        else:
            settings, targets = checked_from_args(args, env)
            matrix = new_matrix(settings, targets, key)
        running = matrix
        status = run_together(matrix, stopped_by, lambda: matrix_progress_line(running))
    except (InputError, RunError) as exc:
        return fail(exc)
    except KeyboardInterrupt:
        return interrupted(matrix.evaluation_id if matrix is not None else None)
    return _report_end(matrix, status, args, export_paths, level, stopped_exit(stopped_by))


def _check_export(text: str) -> Path:
    from passk_tui.reports.matrix_export import check_matrix_export

    return check_matrix_export(text)


def _report_end(
    matrix: MatrixRun,
    status: str,
    args: argparse.Namespace,
    export_paths: list[Path],
    level: Fraction,
    cancelled: int,
) -> int:
    """The matrix on stdout, each target's errors and gate on stderr, then the exports."""
    failed = failed_together(matrix, status)
    if failed is not None:
        return failed
    try:
        reading = matrix.reading(level)
        table = reading.table()
    except (InputError, RunError) as exc:
        return fail(exc)
    if not print_out(table, matrix.evaluation_id):
        return ExitCode.CANNOT_RUN
    for label, one in zip(reading.labels, reading.readings, strict=True):
        for line in one.error_lines():
            say(f"{label} {line.lstrip()}")
    if status == "cancelled":
        for label, one in zip(reading.labels, reading.readings, strict=True):
            say(f"{label} {one.not_run_line()}")
        resume_hint(matrix.evaluation_id)
        code = cancelled
    else:
        for line in reading.gate_lines(args.require):
            say(line)
        budget_lines(zip(reading.labels, reading.readings, strict=True))
        if args.fail_on_regression:
            for line in reading.regression_lines():
                say(line)
        code = reading.exit_code(args.fail_on_regression)
    for path in export_paths:
        code = _export(reading, path, code)
    return code


def _export(reading: MatrixReading, path: Path, code: int) -> int:
    """Write the group's export (``export_said``)."""
    from passk_tui.reports.matrix_export import export_matrix

    return export_said(lambda: export_matrix(reading, path), code)


def matrix_progress_line(matrix: MatrixRun) -> str:
    """Every target's counts on one line, then the Runs in flight and the time."""
    return together_line(list(zip(matrix.labels, matrix.members, strict=True)))
