"""`--baseline V` headless: both versions in one go, then the comparison on stdout, as `compare`.

Exit status: the gate of ``--require`` reads the candidate alone (the version under
test; the baseline is what it is measured against). 1 when ``--fail-on-regression``
finds a regressed case or the candidate fails the gate; else 4 when the confident
gate leaves a candidate case undecided; else 0. A pair that could not run, was
stopped or failed exits as a single evaluation does (2, 3, 130, ...).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

from passk_tui.cli.compare import report_comparison
from passk_tui.cli.live import failed_together, run_together, together_line
from passk_tui.cli.output import (
    budget_lines,
    export_said,
    fail,
    interrupted,
    resume_hint,
    say,
    stopped_exit,
)
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE, parse_exact_confidence
from passk_tui.core.inputs.settings import parse_confidence, parse_version
from passk_tui.core.reading.gate_words import gate_lines
from passk_tui.evaluations.pairing import PairedRun, find_pair, new_pair, resume_pair
from passk_tui.evaluations.reading import reading_of
from passk_tui.evaluations.settings_text import flag, resume_changes, settings_from_args, stack_key
from passk_tui.reports.compare_export import check_comparison_export, export_comparison
from passk_tui.store.comparison import ComparedEvaluations
from passk_tui.store.pairs import Pair


def run_if_paired(args: argparse.Namespace, env: Mapping[str, str]) -> int | None:
    """The exit status of a paired run (``--baseline V``, or ``--resume`` of either of a
    pair); None when the run is a single evaluation, left to ``run_headless``."""
    try:
        baseline = flag("baseline", args.baseline, parse_version, None)
        pair = _resumed_pair(args.resume) if args.resume else None
        if pair is None:
            if args.resume and baseline is not None:
                raise InputError(
                    f"--baseline: evaluation {args.resume} ran without a baseline; start a new "
                    "pair (--baseline V without --resume)"
                )
            if baseline is None:
                if args.fail_on_regression:
                    raise InputError(
                        "--fail-on-regression: only with --baseline V (or passk-tui compare A B)"
                    )
                return None
    except (InputError, RunError) as exc:
        return fail(exc)
    return _run_pair(args, env, pair, baseline)


def _resumed_pair(ref: str) -> Pair | None:
    """The pair ``--resume`` names; None when it names one evaluation alone, or names none
    (which the single path then says)."""
    try:
        return find_pair(ref)
    except (InputError, RunError):
        return None


def _run_pair(
    args: argparse.Namespace, env: Mapping[str, str], pair: Pair | None, baseline: int | None
) -> int:
    paired: PairedRun | None = None
    stopped_by: list[int] = []
    try:
        export_paths = [check_comparison_export(text) for text in args.export or ()]
        gate_level = flag("confidence", args.confidence, parse_confidence, None)
        level = flag("confidence", args.confidence, parse_exact_confidence, DEFAULT_CONFIDENCE)
        key = stack_key(args, env)
        if pair is not None:
            paired = resume_pair(pair, key, resume_changes(args), baseline_version=baseline)
        else:
            assert baseline is not None
            paired = new_pair(settings_from_args(args, env), baseline, key)
        running = paired
        status = run_together(paired, stopped_by, lambda: pair_progress_line(running))
    except (InputError, RunError) as exc:
        return fail(exc)
    except KeyboardInterrupt:
        return interrupted(paired.evaluation_id if paired is not None else None)
    cancelled = stopped_exit(stopped_by)
    return _report_pair_end(paired, status, args, export_paths, level, gate_level, cancelled)


def _report_pair_end(
    paired: PairedRun,
    status: str,
    args: argparse.Namespace,
    export_paths: list[Path],
    level: Fraction,
    gate_level: float | None,
    cancelled: int,
) -> int:
    """The comparison (as `compare` prints it), the candidate's gate, then the exports."""
    failed = failed_together(paired, status)
    if failed is not None:
        return failed
    try:
        compared = paired.compared(level)
    except (InputError, RunError) as exc:
        return fail(exc)
    stopped = status == "cancelled"
    code = report_comparison(
        compared, (), fail_on_regression=args.fail_on_regression and not stopped
    )
    sides = [
        (f"{label} (version {evaluation.settings.version})", reading_of(evaluation))
        for label, evaluation in (("A", paired.baseline), ("B", paired.candidate))
    ]
    for side, reading in sides:
        for line in reading.error_lines():
            say(f"{side} {line.lstrip()}")
        if reading.refused_line is not None:
            say(f"warning: {side} {reading.refused_line}")
    if stopped:
        not_run = sum(e.progress.total - e.progress.finished for e in paired.running.evaluations)
        say(f"cancelled: {not_run} attempts not run")
        resume_hint(paired.evaluation_id)
        code = cancelled
    else:
        gate = _candidate_gate(compared, gate_level, args.require)
        code = code or gate  # a regression (1) outranks an undecided gate (4)
        budget_lines(sides)
    for path in export_paths:
        code = _export(compared, path, code)
    return code


def _candidate_gate(compared: ComparedEvaluations, level: float | None, shown: str | None) -> int:
    """The ``--require`` gate on the candidate, its lines on stderr; its exit status."""
    stored = compared.candidate
    # An adaptive candidate reads anytime-valid intervals, always with the confident gate.
    reading = reading_of(stored).read_at(level)
    for line in gate_lines(reading, shown):
        say(f"B (version {stored.settings.version}) {line}")
    return reading.exit_code


def _export(compared: ComparedEvaluations, path: Path, code: int) -> int:
    """Write the comparison (``export_said``)."""
    return export_said(lambda: export_comparison(compared, path), code)


def pair_progress_line(paired: PairedRun) -> str:
    """Both evaluations' counts on one line, then the Runs in flight and the time."""
    return together_line(
        [
            (f"{label} v{evaluation.settings.version}", evaluation)
            for label, evaluation in (("A", paired.baseline), ("B", paired.candidate))
        ]
    )
