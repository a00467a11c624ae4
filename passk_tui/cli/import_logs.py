"""`passk-tui import FORMAT FILE...`: another tool's run stored as an evaluation, then shown
as a run of ours is (the plain table, the gate's exit status, the export).

The files are hashed on a thread (``FileDigests``) from the moment they are named, while the
modules the import needs load: those are imported in ``run_import``, after the flags are read.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passk_tui.cli.flags import FlagParser
from passk_tui.core.inputs.file_digests import FileDigests

if TYPE_CHECKING:
    from passk_tui.evaluations.imported import ImportView

#: One line per format for --help: what each attempt is and what decides it.
FORMATS_HELP = {
    "inspect": "an inspect_ai log (.eval or .json): each epoch of a sample an attempt, its score decides",
    "promptfoo": "promptfoo's results.json of a repeated eval: each repeat of a test, `success` decides",
    "tau-bench": "tau-bench / tau2-bench results: each trial of a task, reward == 1 passes",
    "lm-eval": "lm-evaluation-harness samples JSONL, one file a run: the metric decides",
    "jsonl": 'one attempt a line: {"case", "attempt", "outcome": passed|wrong|errored, ...}',
}


class ImportParser(FlagParser):
    """The import flags: the files are a list by design."""

    list_flags = frozenset({"files", "export"})


def build_import_parser() -> argparse.ArgumentParser:
    parser = ImportParser(
        prog="passk-tui import",
        description=(
            "Bring your logs: read another tool's run and store it as an evaluation, with every "
            "figure, interval, gate, export, History, compare and app view of a run of ours. "
            "Importing the same files again shows the stored evaluation with the settings given "
            "now. Formats: " + "; ".join(f"{name}: {text}" for name, text in FORMATS_HELP.items())
        ),
        epilog=(
            "exit status: 0 imported (and the gate held), 1 the --require gate failed, "
            "2 bad flags or a bad file (named with its record), 4 the confident gate could not "
            "decide some case, 5 only the --export could not be written"
        ),
    )
    parser.add_argument(
        "format", metavar="FORMAT", choices=list(FORMATS_HELP), help=" | ".join(FORMATS_HELP)
    )
    parser.add_argument(
        "files", metavar="FILE", nargs="+", help="the run's files (several: one run)"
    )
    parser.add_argument(
        "--agent", metavar="NAME", help="what was evaluated (default: the log's model)"
    )
    parser.add_argument("--version", metavar="N", help="its version, an integer (default 1)")
    parser.add_argument(
        "--k", metavar="K", help="the k in pass@k (default 3, or the fewest attempts)"
    )
    parser.add_argument("--require", metavar="X", help="exit 1 when a case's pass@k is below X")
    parser.add_argument("--confidence", metavar="C", help="the level of every interval, 0 < C < 1")
    parser.add_argument(
        "--family-wise",
        action="store_true",
        help="with --confidence and --require: the whole suite",
    )
    parser.add_argument(
        "--export",
        metavar="PATH",
        action="append",
        help="also write .json .csv .md .xml or .html (given again: each one written)",
    )
    parser.add_argument(
        "--pass-value", metavar="V", help="inspect: the score value that passes (default C or 1)"
    )
    parser.add_argument(
        "--no-transcripts",
        action="store_true",
        help="inspect: outcomes only, from an archive's summaries (no conversation kept; faster)",
    )
    parser.add_argument(
        "--metric", metavar="NAME", help="lm-eval: the metric that decides (default the first)"
    )
    return parser


def run_import(argv: list[str]) -> int:
    """`passk-tui import`: the exit status, as a run's (the gate's), or 2 for a bad file."""
    args = build_import_parser().parse_args(argv)
    paths = [Path(name) for name in args.files]
    # Hashed from now on, when every file is there (a missing one is said in its turn, below).
    digests = FileDigests(paths) if all(path.is_file() for path in paths) else None
    from passk_tui.core.run.gc_thresholds import relaxed_gc

    # A log of 50,000 samples is read into as many attempts, all kept: with the default
    # thresholds the collector rescans that growing heap hundreds of times (0.4-0.7 s).
    with relaxed_gc():
        return _imported(args, paths, digests)


def _imported(args: argparse.Namespace, paths: list[Path], digests: FileDigests | None) -> int:
    from passk_tui.cli.output import fail, interrupted, say
    from passk_tui.cli.run import report_end
    from passk_tui.core.errors import InputError, RunError
    from passk_tui.evaluations.imported import import_files, shown
    from passk_tui.store import Store

    try:
        view = _view(args)
        export_paths: list[Path] = []
        if args.export:
            from passk_tui.reports.export import check_export_path

            export_paths = [check_export_path(text) for text in args.export]
        for path in paths:
            if not path.is_file():
                raise InputError(f"{path}: no such file")
        store = Store.open()
        imported = import_files(args.format, paths, _options(args), view, store, digests)
    except (InputError, RunError) as exc:
        return fail(exc)
    except KeyboardInterrupt:  # the transaction rolled back, the conversations' reader gone
        return interrupted(None, "nothing imported")
    for line in imported.lines:
        say(line)
    evaluation = shown(imported, store)
    try:
        return report_end(evaluation, "done", args, export_paths)
    except KeyboardInterrupt:
        return interrupted(
            None,
            f"imported as evaluation {imported.evaluation_id} (shown again by the same command)",
        )
    finally:
        evaluation.release()


def _view(args: argparse.Namespace) -> ImportView:
    from passk_tui.core.inputs.settings import (
        parse_agent_name,
        parse_confidence,
        parse_require,
        parse_version,
        parse_whole_number,
    )
    from passk_tui.evaluations.imported import ImportView
    from passk_tui.evaluations.settings_text import flag

    return ImportView(
        k=flag("k", args.k, parse_whole_number, None),
        require=flag("require", args.require, parse_require, None),
        confidence=flag("confidence", args.confidence, parse_confidence, None),
        family_wise=bool(args.family_wise),
        agent=flag("agent", args.agent, parse_agent_name, None),
        version=flag("version", args.version, parse_version, None),
    )


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The mapping's options that change what is stored (outcomes, transcripts): part of what
    makes two imports the same."""
    options: dict[str, Any] = {}
    if args.pass_value is not None:
        options["pass_value"] = args.pass_value
    if args.metric is not None:
        options["metric"] = args.metric
    if args.no_transcripts:
        options["transcripts"] = False
    return options
