"""`passk-tui compare A B`: two stored evaluations compared per case, on stdout, with a gate."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from passk_tui.cli.flags import FlagParser
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE, parse_exact_confidence
from passk_tui.core.render.compare_text import plain_comparison, regression_lines
from passk_tui.core.text.terminal_text import message_line, terminal_safe
from passk_tui.evaluations.settings_text import flag
from passk_tui.reports.compare_export import RENDERERS, check_comparison_export, export_comparison
from passk_tui.store import Store
from passk_tui.store.comparison import ComparedEvaluations, load_compared


def build_compare_parser() -> argparse.ArgumentParser:
    """The flags of `passk-tui compare` (its own parser: the run flags do not apply here)."""
    parser = FlagParser(
        prog="passk-tui compare",
        description=(
            "Did the change help? Compare two stored evaluations per case: A is the baseline, "
            "B the candidate. Each case in both gets Fisher's exact test (two-sided) on its "
            "passes and non-passes, adjusted across the cases by Holm's method, and a verdict: "
            "improved or regressed when the adjusted p is below 1-C, else unclear. Cases in "
            "only one are listed after the table. When either side's n was chosen by looking "
            "(adaptive), an anytime-valid test stands in for Fisher's, named in the output. "
            "The suite line tests all the cases at once, stratified by case "
            "(Cochran-Mantel-Haenszel, with the Mantel-Haenszel common odds ratio). "
            "Errored attempts stay apart from wrong ones: "
            "a regression that is mostly errored is named as such."
        ),
        epilog=(
            "exit status: 0 compared, 1 --fail-on-regression and a case or the suite regressed, "
            "2 bad flags, an unknown or ambiguous evaluation, or two evaluations that share "
            "no case or differ in k"
        ),
    )
    where = "an id, a unique prefix of one, last (the newest) or last~N (N before it)"
    parser.add_argument("baseline", metavar="A", help=f"the baseline evaluation: {where}")
    parser.add_argument("candidate", metavar="B", help="the candidate evaluation, named as A")
    parser.add_argument(
        "--confidence",
        metavar="C",
        help="a verdict needs an adjusted p below 1-C, 0 < C < 1 (default 0.95)",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when any case regressed, or the suite did, naming each on stderr",
    )
    parser.add_argument(
        "--export",
        metavar="PATH",
        action="append",
        help=f"also write the comparison: {' '.join(RENDERERS)} (the format follows the suffix; "
        "given again: each one written)",
    )
    parser.list_flags = frozenset({"export"})
    return parser


def run_compare(argv: list[str]) -> int:
    """Parse, load both evaluations, print the comparison; the return value is the exit status."""
    args = build_compare_parser().parse_args(argv)
    try:
        confidence = flag("confidence", args.confidence, parse_exact_confidence, DEFAULT_CONFIDENCE)
        export_paths = [check_comparison_export(text) for text in args.export or ()]
        with Store.open() as store:
            compared = load_compared(store, args.baseline, args.candidate, confidence)
        return report_comparison(compared, export_paths, fail_on_regression=args.fail_on_regression)
    except (InputError, RunError) as exc:
        sys.stderr.write(f"passk-tui: {message_line(str(exc))}\n")
        return exc.exit_code


def report_comparison(
    compared: ComparedEvaluations, export_paths: Sequence[Path], *, fail_on_regression: bool
) -> int:
    """Warnings, the table on stdout, the export, the gate: what `compare` and a run with a
    baseline both end with. Returns the exit status; an export that cannot be written raises."""
    for warning in compared.warnings():
        sys.stderr.write(f"passk-tui: warning: {message_line(warning)}\n")
    sys.stdout.write(plain_comparison(compared.comparison))
    lines = [*compared.definition_lines(), *compared.cost_lines()]
    sys.stdout.write("".join(f"{terminal_safe(line)}\n" for line in lines))
    sys.stdout.flush()
    for path in export_paths:
        export_comparison(compared, path)
    if not fail_on_regression:
        return ExitCode.OK
    for line in regression_lines(compared.comparison):
        sys.stderr.write(f"passk-tui: {message_line(line)}\n")
    return ExitCode.GATE_FAILED if compared.comparison.fails_on_regression else ExitCode.OK
