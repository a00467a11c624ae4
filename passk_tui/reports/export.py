"""Exports of an evaluation, the format following the suffix: .json .csv .md .xml (JUnit) .html.

``export(source, path, confidence)`` reads the evaluation once (``report.py``)
and lays it out. .json carries exact-enough floats (``repr``), the exact
fractions beside them and every interval's ends; .csv and .md show the same
two-decimal text as the plain table; an undefined figure is null in .json and
``-`` elsewhere. The stack key is never part of the input, so it cannot reach a
file. A file is written to a temporary name beside the target and renamed into
place, created with the user's umask; a failure removes the temporary file.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import fields
from importlib import import_module
from pathlib import Path
from typing import Any

from passk_tui.core.errors import ExitCode, InputError
from passk_tui.core.reading.vocabulary import CaseFigures, FigureIntervals, Interval
from passk_tui.core.render.reruns_text import reruns
from passk_tui.core.render.table import table_rows
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.text.figure_text import (
    gate_text,
    interval_text,
    level_text,
    outward_ends,
    promise_words,
    two_decimals,
    yes_no,
)
from passk_tui.reports import costs, judge_json
from passk_tui.reports.curve_json import curve_json
from passk_tui.reports.json_text import compact_json
from passk_tui.reports.report import (
    CaseReport,
    Report,
    TableGroup,
    build_report,
    iso_time,
    read_as,
    table_groups,
)
from passk_tui.reports.transcripts import (
    conversation_json,
    transcript_json,
)
from passk_tui.store.models import StoredEvaluation

#: Each suffix's renderer as ``module:function``, imported when an export of that kind is
#: written: a run that writes no .html or .xml never loads the HTML report or the JUnit layout.
RENDERERS: dict[str, str] = {
    ".json": f"{__name__}:render_json",
    ".csv": f"{__name__}:render_csv",
    ".md": f"{__name__}:render_md",
    ".xml": "passk_tui.reports.junit:render_junit",
    ".html": "passk_tui.reports.report_html:render_report",
}
SUFFIXES = tuple(RENDERERS)
#: The exit status when the evaluation ran (and its gate held) but its export could not be written.


class ExportError(InputError):
    """The export could not be made or written: exit 5, unless the gate already says otherwise.

    An InputError (the path the user gave cannot take the results), so every face
    that reports those reports this too, with its own exit status.
    """

    exit_code = ExitCode.EXPORT_FAILED


def check_export_path(text: str, suffixes: Sequence[str] = SUFFIXES) -> Path:
    """The --export path, refused (InputError) for an unknown suffix or a missing folder."""
    path = Path(text)
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        listed = ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}"
        raise InputError(
            f"--export {text}: the format follows the suffix: {listed}, not {suffix or 'none'!r}"
        )
    if not path.parent.is_dir():
        raise InputError(f"--export {text}: no such folder {str(path.parent)!r}")
    unnamable = InputError(f"--export {text}: no file can have this name")
    if "\x00" in text:
        raise unnamable
    try:
        os.fsencode(path)  # a lone surrogate: exists() says False for it, as for a NUL
        path.exists()
    except UnicodeEncodeError:
        raise unnamable from None
    except OSError as exc:  # a name longer than the system takes: said now, not after the run
        raise InputError(f"--export {text}: {exc.strerror or exc}") from None
    return path


def export(
    source: StoredEvaluation | Evaluation | Report,
    path: str | Path,
    confidence: float | None = None,
) -> Path:
    """Write the evaluation to ``path`` in the format its suffix names; ExportError in one line."""
    try:
        path = check_export_path(str(path))
    except InputError as exc:
        raise ExportError(str(exc)) from None
    report = source if isinstance(source, Report) else build_report(source, confidence)
    try:
        text = renderer(path.suffix.lower())(report)
    except (RecursionError, ValueError) as exc:
        raise ExportError(f"--export {path}: cannot lay the results out: {exc}") from None
    write_file(path, text)
    return path


def renderer(suffix: str) -> Callable[[Report], str]:
    """The function that lays a report out in the format ``suffix`` names (one of SUFFIXES)."""
    module, _, name = RENDERERS[suffix].partition(":")
    render: Callable[[Report], str] = getattr(import_module(module), name)
    return render


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to a new temporary file beside ``path`` (mode 0666 less the umask), then rename."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                out.write(text)
            os.replace(temp, path)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ExportError(f"--export {path}: cannot write: {exc.strerror or exc}") from None


# -- .json ---------------------------------------------------------------------------------


def _interval_json(interval: Interval | None) -> dict[str, float] | None:
    return None if interval is None else {"low": interval.low, "high": interval.high}


def _intervals_json(intervals: FigureIntervals) -> dict[str, Any]:
    return {
        "pass_at_1": _interval_json(intervals.pass_at_1),
        "pass_at_k": _interval_json(intervals.pass_at_k),
        "pass_hat_k": _interval_json(intervals.pass_hat_k),
    }


def _exact(value: object | None) -> str | None:
    return None if value is None else str(value)


def _number(value: object | None) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def figures_json(f: CaseFigures) -> dict[str, Any]:
    """A case's counts and figures as JSON: floats to read, exact fractions to check, null if undefined."""
    return {
        "attempts": f.n,
        "passed": f.passed,
        "wrong": f.wrong,
        "errored": f.errored,
        "pass_at_1": _number(f.pass_at_1),
        "pass_at_k": _number(f.pass_at_k),
        "pass_hat_k": _number(f.pass_hat_k),
        "all_passed": f.all_passed,
        "exact": {
            "pass_at_1": _exact(f.pass_at_1),
            "pass_at_k": _exact(f.pass_at_k),
            "pass_hat_k": _exact(f.pass_hat_k),
        },
    }


def _case_json(c: CaseReport, verbatim: Callable[[Any], str]) -> dict[str, Any]:
    case = {
        "name": c.figures.name,
        "input": verbatim(c.case.input),
        **{key: verbatim(value) for key, value in c.case.conversation().items()},
        "check": verbatim(c.case.spec),
        "figures": figures_json(c.figures),
        "curve": curve_json(c.figures),
        "intervals": _intervals_json(c.reading.intervals),
        "gate": c.reading.verdict,
        "stop_reason": _reason(c),
    }
    if c.own is not None:  # read on its own terms: the verdict's k, gate, figures and intervals
        terms, own = c.own, c.own.cases[0]
        case["own_gate"] = {
            "k": terms.k,
            "require": None if terms.require is None else gate_text(terms.require),
            "kind": terms.gate_kind,
            "confidence": terms.promise if terms.confident else None,
            "figures": figures_json(own.figures),
            "intervals": _intervals_json(own.intervals),
        }
    return case


def _reason(c: CaseReport) -> str | None:
    """A case's stop reason as stored (``decided pass at 14``), or None (fixed n, still sampled)."""
    return None if c.stop_reason is None else str(c.stop_reason)


def _gate_json(report: Report) -> dict[str, Any] | None:
    reading, session = report.reading, report.session
    if session is not None:
        require = session.require
    elif reading.require is not None:
        require = gate_text(reading.require)
    else:
        return None
    return {
        "require": require,
        "kind": report.gate_kind,
        "confidence": reading.promise if reading.confident else None,
        # Which promise the verdicts keep; family-wise, each case was read at case_level.
        "promise": promise_words(reading.family_wise) if reading.confident else None,
        "case_level": reading.level if reading.confident else None,
        "held": report.exit_status == 0,
        "under": [c.figures.name for c in reading.failing],
        "undecided": [c.figures.name for c in reading.undecided] if reading.confident else [],
        "exit_status": report.exit_status,
    }


def render_json(report: Report) -> str:
    """The evaluation, its cases with figures, intervals and verdicts, the gate, and every attempt.

    Values from outside (inputs, checks, answers, usage) are written compactly,
    one line each, by an encoder that does not recurse: an answer nested
    hundreds deep exports like any other.
    """
    stored, reading = report.stored, report.reading
    s = stored.settings
    token = secrets.token_hex(8)
    kept: list[str] = []

    def verbatim(value: Any) -> str:
        return raw(compact_json(value))

    def raw(text: str) -> str:
        kept.append(text)
        return f"\x00{token}:{len(kept) - 1}\x00"

    document = {
        "evaluation": {
            "id": stored.id,
            "created": iso_time(stored.created),
            "finished": iso_time(stored.finished),
            "status": stored.status,
            "error": stored.error,
            "agent": s.agent,
            "version": s.version,
            "stack": s.stack,
            "agent_definition": stored.definition,
            "attempts": s.attempts,
            "max_attempts": s.max_attempts,
            "precision": s.precision,
            "confidence": s.confidence,
            "family_wise": s.family_wise,
            "k": s.k,
            "require": None if s.require is None else gate_text(s.require),
            "completion_only": s.completion_only,
            "concurrency": s.concurrency,
            "timeout": s.timeout,
            "cases_path": s.cases_path,
            "cases_sha256": stored.cases_sha256,
            # Attempts run again elsewhere because their Ray node died (each counted once).
            "reruns": reruns(stored.records),
            **costs.evaluation_json(stored, report.evaluation, raw),
            **judge_json.evaluation_json(report.evaluation, raw),
            # A simulated user's money, apart from the agent's and the judge's.
            "user_cost": costs.money_json(report.evaluation.user_cost, raw),
        },
        "intervals": {
            "level": reading.level,
            "method": reading.method.name,
            "label": reading.method.label,
            "n_chosen": report.intervals.n_chosen,
            "why": report.intervals.why,
        },
        "gate": _gate_json(report),
        "cases": [
            {
                **_case_json(c, verbatim),
                **costs.case_json(row, raw),
                "conversation": conversation_json(shape, raw),
                **judge_json.case_json(report.evaluation, i, raw),
            }
            for i, (c, row, shape) in enumerate(
                zip(report.cases, report.costs, report.conversations, strict=True)
            )
        ],
        "attempts": [
            {
                # Not dataclasses.asdict: it deep-copies the answer, recursing as deep as it nests.
                **{
                    f.name: getattr(r, f.name)
                    for f in fields(r)
                    if f.name not in ("transcript", "votes")
                },
                "outcome": str(r.outcome),
                "output": verbatim(r.output),
                "usage": verbatim(r.usage),
                "started": iso_time(r.started),
                "ended": iso_time(r.ended),
                "duration": r.duration,
                "judge": judge_json.attempt_json(report.evaluation, r, verbatim, raw),
                "transcript": verbatim(transcript_json(r, stored.cases[r.case_index])),
            }
            for r in stored.records
        ],
    }
    text = json.dumps(document, ensure_ascii=False, indent=2, default=str)
    marker = re.compile(rf'"\\u0000{token}:(\d+)\\u0000"')
    return marker.sub(lambda m: kept[int(m.group(1))], text) + "\n"


# -- .csv ----------------------------------------------------------------------------------


def csv_header(k: int | None) -> list[str]:
    """The .csv's columns at one k; ``None``: each row at its own k, said in a ``k`` column."""
    shown = "k" if k is None else k
    figures = [
        f"{name}{part}"
        for name in ("pass@1", f"pass@{shown}", f"pass^{shown}")
        for part in ("", " low", " high")
    ]
    return [
        "case",
        *(["k"] if k is None else []),
        "attempts",
        "passed",
        "wrong",
        "errored",
        *figures,
        "all_passed",
        "gate",
        "gate_kind",
        "level",
        "method",
        "stop_reason",
        *costs.CSV_HEADER,
    ]


def _bounds(interval: Interval | None) -> list[str]:
    """An interval's two ends as cells, rounded outward as everywhere it is shown."""
    return ["-", "-"] if interval is None else list(outward_ends(interval))


def render_csv(report: Report) -> str:
    """A row per case: counts, each figure with its interval's ends, all passed, the verdict and its gate."""
    reading = report.reading
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    ks = {read_as(c, report)[0].k for c in report.cases}
    shared_k = ks.pop() if len(ks) == 1 else None if ks else reading.k
    writer.writerow(csv_header(shared_k))
    for c, row in zip(report.cases, report.costs, strict=True):
        terms, shown = read_as(c, report)
        f, intervals = shown.figures, shown.intervals
        writer.writerow(
            [
                f.name,
                *([terms.k] if shared_k is None else []),
                f.n,
                f.passed,
                f.wrong,
                f.errored,
                two_decimals(f.pass_at_1),
                *_bounds(intervals.pass_at_1),
                two_decimals(f.pass_at_k),
                *_bounds(intervals.pass_at_k),
                two_decimals(f.pass_hat_k),
                *_bounds(intervals.pass_hat_k),
                yes_no(f.all_passed),
                c.reading.verdict or "-",
                terms.gate_kind,
                f"{terms.level:g}",
                reading.method.name,
                _reason(c) or "-",
                *costs.csv_cells(row),
            ]
        )
    return out.getvalue()


# -- .md -----------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def md_cell(text: str) -> str:
    """Text as itself in a table cell: Markdown's punctuation backslash-escaped, one line."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(md_cell(c) for c in cells) + " |"


def _md_own_gates(report: Report) -> list[str]:
    """Each case whose own gate (a pytest marker's) failed or is undecided, in its own terms."""
    lines = []
    for c in report.cases:
        terms, case = read_as(c, report)
        if terms.require is None or case.verdict in ("pass", None):
            continue
        if case.verdict == "undecided" and not terms.confident:
            continue
        figure = f"pass@{terms.k} " + (
            f"{level_text(terms.level)} CI {interval_text(case.intervals.pass_at_k)}"
            if terms.confident and case.intervals.pass_at_k
            else two_decimals(case.figures.pass_at_k)
        )
        what = "failed" if case.verdict == "fail" else "undecided"
        lines.append(
            f"**Gate {what}**: `{md_cell(case.figures.name)}`: {figure}, "
            f"`require={gate_text(terms.require)}`."
        )
    return lines or ["**Gate held**: every case's own gate held."]


def _md_gate(report: Report) -> list[str]:
    reading = report.reading
    if any(c.own is not None for c in report.cases):
        return _md_own_gates(report)
    if reading.require is None:
        return ["No gate (`--require`) was set."]
    k, shown = reading.k, gate_text(reading.require)

    def names(cases: Sequence[Any], confident: bool) -> str:
        return ", ".join(
            f"`{md_cell(c.figures.name)}` ("
            + (
                interval_text(c.intervals.pass_at_k)
                if confident and c.intervals.pass_at_k
                else two_decimals(c.figures.pass_at_k)
            )
            + ")"
            for c in cases
        )

    how = f"the {level_text(reading.level)} interval of " if reading.confident else ""
    lines = []
    if reading.failing:
        lines.append(
            f"**Gate failed**: {how}pass@{k} below `--require {shown}` for "
            f"{names(reading.failing, reading.confident)}."
        )
    if reading.confident and reading.undecided:
        lines.append(
            f"**Gate undecided**: {how}pass@{k} includes `--require {shown}` for "
            f"{names(reading.undecided, True)}; more attempts would settle it."
        )
    if not lines:
        lines.append(f"**Gate held**: {how}every case's pass@{k} is at least {shown}.")
    return lines


def render_md(report: Report) -> str:
    """The table with pass^k and the pass@k interval, then the gate: for a PR comment or CI summary."""
    stored, reading = report.stored, report.reading
    s = stored.settings
    groups = table_groups(report)
    through = f"pass@{s.k}" if len(groups) == 1 else "each test's own pass@k"
    lines = [
        f"### passk-tui: {md_cell(s.agent)} version {s.version}",
        "",
        *(line for group in groups for line in _md_table(group, s.adaptive)),
        *_md_gate(report),
        "",
        f"Intervals: {level_text(reading.level)} {reading.method.label}, for the per-attempt pass "
        f"rate, mapped through {through}; {report.intervals.why}. `-` is a figure fewer than "
        "k attempts cannot define.",
        "",
        f"Evaluation `{stored.id}`, {stored.status}: {_counted(report)}.",
    ]
    return "\n".join(lines) + "\n"


def _md_table(group: TableGroup, adaptive: bool) -> list[str]:
    """One results table (under its heading when the tests are read in several ways)."""
    figures = [c.figures for c in group.cases]
    rows = table_rows(figures, group.reading.k, group.reading, pass_hat=True)
    if adaptive:
        rows = [(*rows[0], "stopped")] + [
            (*row, _reason(c) or "-") for row, c in zip(rows[1:], group.cases, strict=True)
        ]
    heading = [] if group.heading is None else [f"**{md_cell(group.heading)}**", ""]
    return [*heading, *(md_row(row) for row in [rows[0], ["---"] * len(rows[0]), *rows[1:]]), ""]


def _counted(report: Report) -> str:
    """The attempts in, and the k: the tests' own each (they planned their own attempts too)."""
    stored = report.stored
    if report.per_test:
        return f"{len(stored.records)} attempts, each test at its own k"
    return f"{attempts_text(stored)}, k = {stored.settings.k}"


def attempts_text(stored: StoredEvaluation) -> str:
    """How many attempts are in, of how many: planned, or adaptive's per-case range."""
    s, recorded = stored.settings, len(stored.records)
    if s.adaptive:
        return f"{recorded:,} attempts (adaptive: {s.attempts} to {s.max_attempts} per case)"
    return f"{recorded}/{len(stored.cases) * s.attempts} attempts"
