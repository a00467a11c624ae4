"""From flags to the running app and back to an exit status (imported only when the UI is wanted)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.settings import parse_version
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.run.gc_thresholds import relaxed_gc
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.evaluations.lookups import working_folder_fields
from passk_tui.evaluations.settings_text import (
    BASELINE_REFUSED,
    checked_from_args,
    flag,
    matrix_resume_changes,
    resume_changes,
    stack_key,
)
from passk_tui.reports.export import check_export_path
from passk_tui.tui.app.early_start import start_early, stop_unshown
from passk_tui.tui.screens.configure.form import SWITCHES, TEXT_FIELDS, FormValues, blank_form
from passk_tui.tui.screens.configure.last_used import (
    for_this_folder,
    load_last_used,
    save_last_used,
    used_in,
)

if TYPE_CHECKING:
    from passk_tui.evaluations.matrix import MatrixRun
    from passk_tui.evaluations.pairing import PairedRun

#: Flags that fill the configure field of the same name: every text field but the key,
#: which reaches the screen as ``env_key`` and is never put in a field.
_FLAG_FIELDS = tuple(name for name in TEXT_FIELDS if name != "key")


def starts_at_once(args: argparse.Namespace) -> bool:
    """With --agent, --version and --cases (or --demo, or --resume) the run starts at once."""
    return bool(args.resume or args.demo or (args.agent and args.version and args.cases))


def flag_values(args: argparse.Namespace) -> FormValues:
    """The fields as the flags alone give them: what a run started from flags ran with, so
    the next ``passk-tui`` opens on it (as one started from Configure does)."""
    values = blank_form()
    values.update({n: getattr(args, n) for n in _FLAG_FIELDS if getattr(args, n, None) is not None})
    values["completion_only"] = bool(args.completion_only)
    return values


def form_values(
    args: argparse.Namespace, env: Mapping[str, str], notices: list[str] | None = None
) -> tuple[FormValues, bool]:
    """The configure fields: last-used settings, then the working folder's cases.toml and
    agents.toml (what ``passk-tui init`` wrote, here: they are what this folder is about),
    overridden by flags and PASSK_STACK.

    The second value says whether anything at all was configured (else the demo is offered).
    Last-used settings for another folder's agent are left out, said in ``notices``.
    """
    values = blank_form()
    saved = load_last_used()
    here = working_folder_fields(Path.cwd())
    if saved.get("stack") or args.stack or env.get("PASSK_STACK"):
        here = {"cases": here["cases"]} if "cases" in here else {}  # agents are the stack's
    fitting, left_out = for_this_folder(saved, used_in(), Path.cwd(), here)
    if left_out is not None and notices is not None:
        notices.append(left_out)
    values.update(fitting)
    values.update(here)
    given = bool(here)
    for name in _FLAG_FIELDS:
        value = getattr(args, name, None)
        if value is not None:
            values[name] = value
            given = True
    for name in SWITCHES:
        if getattr(args, name, None):
            values[name] = True
            given = True
    if not args.stack and env.get("PASSK_STACK"):
        values["stack"] = env["PASSK_STACK"]
        given = True
    return values, bool(saved) or given


def run_app(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Open the app (running at once when the flags say what to measure); return the exit status."""
    start: Evaluation | PairedRun | MatrixRun | None = None
    warnings: list[str] = []
    try:
        key = stack_key(args, env)
        baseline = flag("baseline", args.baseline, parse_version, None)
        matrix = any("," in (text or "") for text in (args.version, args.agent))
        export_paths = [
            _export_path(t, paired=baseline is not None, matrix=matrix) for t in args.export or ()
        ]
        if args.resume:
            start, warnings = _resumed(args, key, baseline)
        elif starts_at_once(args):
            settings, targets = checked_from_args(args, env)
            if targets:
                if baseline is not None:
                    raise InputError(BASELINE_REFUSED)
                from passk_tui.evaluations.matrix import new_matrix

                start = new_matrix(settings, targets, key)
                warnings = start.warnings
            elif baseline is not None:
                from passk_tui.evaluations.pairing import new_pair

                start = new_pair(settings, baseline, key)
                warnings = start.warnings
            else:
                from passk_tui.evaluations.new import new_evaluation

                recorded = new_evaluation(settings, key)
                start, warnings = recorded, recorded.warnings
            if not args.demo:
                save_last_used(flag_values(args))
    except (InputError, RunError) as exc:
        sys.stderr.write(f"passk-tui: {terminal_safe(str(exc))}\n")
        return exc.exit_code
    notices = list(warnings)
    values, configured = form_values(args, env, notices)
    loop = asyncio.new_event_loop()
    with relaxed_gc():
        # A single evaluation begins before Textual is imported: its first Turns are out
        # meanwhile (a pair starts with the app, as its run control interleaves the two).
        early = start if isinstance(start, Evaluation) else None
        running = loop.run_until_complete(start_early(early)) if early else None
        try:
            # Inside the try: Runs are out, so an app that cannot be built (or a Ctrl+C
            # while Textual is imported) withdraws them as a cancel does.
            from passk_tui.tui.app.app import PasskApp

            app = PasskApp(
                form=values,
                env_key=key,
                offer_demo=not configured,
                start=start,
                running=running,
                export_paths=export_paths,
                notices=notices,
                fail_on_regression=bool(args.fail_on_regression),
            )
            app.run(loop=loop)
        finally:
            if early is not None and running is not None:
                stop_unshown(loop, early, running)
            loop.close()
    for line in app.exit_messages():
        sys.stderr.write(terminal_safe(line) + "\n")
    return app.exit_status


def _export_path(text: str, *, paired: bool, matrix: bool = False) -> Path:
    """--export checked as the run will write it: a pair writes its comparison, a matrix its own."""
    if matrix:
        from passk_tui.reports.matrix_export import check_matrix_export

        return check_matrix_export(text)
    if paired:
        from passk_tui.reports.compare_export import check_comparison_export

        return check_comparison_export(text)
    return check_export_path(text)


def _resumed(
    args: argparse.Namespace, key: str | None, baseline: int | None
) -> tuple[Evaluation | PairedRun | MatrixRun, list[str]]:
    """``--resume ID``: the matrix or the pair it is one of (all go on together, as headless),
    else it alone."""
    from passk_tui.evaluations.matrix import find_group, given_targets, resume_matrix
    from passk_tui.evaluations.pairing import find_pair, resume_pair
    from passk_tui.evaluations.resume import resume_evaluation

    group = find_group(args.resume)
    if group is not None:
        if baseline is not None:
            raise InputError(BASELINE_REFUSED)
        targets = given_targets(args.agent, args.version, group)
        matrix = resume_matrix(group, key, matrix_resume_changes(args), targets=targets)
        return matrix, matrix.warnings
    pair = find_pair(args.resume)
    if pair is not None:
        paired = resume_pair(pair, key, resume_changes(args), baseline_version=baseline)
        return paired, paired.warnings
    if baseline is not None:
        raise InputError(
            f"--baseline: evaluation {args.resume} ran without a baseline; start a new "
            "pair (--baseline V without --resume)"
        )
    resumed = resume_evaluation(args.resume, key, resume_changes(args))
    return resumed.evaluation, resumed.warnings
