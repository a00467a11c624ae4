"""Exports of an evaluation, the format following the suffix: .json .csv .md .xml (JUnit) .html.

``export(evaluation, path)`` takes a ``StoredEvaluation`` (``Store.load``) or a
live ``Evaluation``. Figures are written so they parse back to the exact same
floats (``repr``) in .json and .csv, with the exact fraction beside them in
.json; .md shows the plain table's two decimals. The stack key is never part of
either input, so it cannot reach a file.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from passk_tui.core.engine import Evaluation
from passk_tui.core.errors import InputError
from passk_tui.core.figures import CaseFigures, two_decimals
from passk_tui.core.table import below_gate, gate_text, table_rows
from passk_tui.store.models import StoredEvaluation
from passk_tui.store.report_html import render_report

SUFFIXES = (".json", ".csv", ".md", ".xml", ".html")


def check_export_path(text: str) -> Path:
    """The --export path, refused (InputError) for an unknown suffix or a missing folder."""
    path = Path(text)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(
            f"--export {text}: the format follows the suffix: .json, .csv, .md, .xml or .html, "
            f"not {suffix or 'none'!r}"
        )
    if not path.parent.is_dir():
        raise InputError(f"--export {text}: no such folder {str(path.parent)!r}")
    return path


def export(source: StoredEvaluation | Evaluation, path: str | Path) -> Path:
    """Write the evaluation to ``path`` in the format its suffix names; atomic (temp + rename)."""
    path = check_export_path(str(path))
    stored = source if isinstance(source, StoredEvaluation) else snapshot(source)
    text = RENDERERS[path.suffix.lower()](stored)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.replace(temp, path)
    except OSError as exc:
        raise InputError(f"--export {path}: cannot write: {exc.strerror or exc}") from None
    return path


def snapshot(evaluation: Evaluation) -> StoredEvaluation:
    """A live Evaluation in the stored shape, for exporting one that has no store behind it."""
    progress = evaluation.progress
    records = sorted(
        (r for rows in progress.records for r in rows), key=lambda r: (r.case_index, r.attempt)
    )
    return StoredEvaluation(
        id=evaluation.evaluation_id,
        created=datetime.now(UTC).timestamp() - progress.elapsed(),
        finished=None,
        status=evaluation.status or "running",
        error=evaluation.error,
        settings=evaluation.settings,
        cases=evaluation.cases,
        cases_sha256="",
        records=records,
    )


# -- the formats ---------------------------------------------------------------------------


def _time(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def _figures_json(f: CaseFigures) -> dict[str, Any]:
    return {
        "attempts": f.n,
        "passed": f.passed,
        "wrong": f.wrong,
        "errored": f.errored,
        "pass_at_1": float(f.pass_at_1),
        "pass_at_k": float(f.pass_at_k),
        "pass_hat_k": float(f.pass_hat_k),
        "all_passed": f.all_passed,
        "exact": {
            "pass_at_1": str(f.pass_at_1),
            "pass_at_k": str(f.pass_at_k),
            "pass_hat_k": str(f.pass_hat_k),
        },
    }


def render_json(stored: StoredEvaluation) -> str:
    """The evaluation, its cases with their figures, the gate, and every attempt."""
    s = stored.settings
    figures = stored.figures()
    under = below_gate(figures, s.require) if s.require is not None else []
    document = {
        "evaluation": {
            "id": stored.id,
            "created": _time(stored.created),
            "finished": _time(stored.finished),
            "status": stored.status,
            "error": stored.error,
            "agent": s.agent,
            "version": s.version,
            "stack": s.stack,
            "attempts": s.attempts,
            "k": s.k,
            "require": None if s.require is None else gate_text(s.require),
            "completion_only": s.completion_only,
            "concurrency": s.concurrency,
            "timeout": s.timeout,
            "cases_path": s.cases_path,
            "cases_sha256": stored.cases_sha256,
        },
        "gate": None
        if s.require is None
        else {"require": gate_text(s.require), "held": not under, "under": [f.name for f in under]},
        "cases": [
            {"name": c.name, "input": c.input, "check": c.spec, "figures": _figures_json(f)}
            for c, f in zip(stored.cases, figures, strict=True)
        ],
        "attempts": [
            {**asdict(r), "outcome": str(r.outcome), "duration": r.duration} for r in stored.records
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=2, default=str) + "\n"


def csv_header(k: int) -> list[str]:
    return [
        "case",
        "attempts",
        "passed",
        "wrong",
        "errored",
        "pass@1",
        f"pass@{k}",
        f"pass^{k}",
        "all_passed",
    ]


def render_csv(stored: StoredEvaluation) -> str:
    """A row per case with every figure (floats that parse back exactly)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(csv_header(stored.settings.k))
    for f in stored.figures():
        writer.writerow(
            [
                f.name,
                f.n,
                f.passed,
                f.wrong,
                f.errored,
                repr(float(f.pass_at_1)),
                repr(float(f.pass_at_k)),
                repr(float(f.pass_hat_k)),
                "yes" if f.all_passed else "no",
            ]
        )
    return out.getvalue()


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def _md_cell(text: str) -> str:
    """Text as itself in a table cell: Markdown's punctuation backslash-escaped, one line."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_md_cell(c) for c in cells) + " |"


def render_md(stored: StoredEvaluation) -> str:
    """The plain table as a Markdown table, then the gate verdict: for a PR comment or CI summary."""
    s = stored.settings
    figures = stored.figures()
    rows = table_rows(figures, s.k)
    lines = [
        f"### passk-tui: {_md_cell(s.agent)} version {s.version}",
        "",
        *(_md_row(row) for row in [rows[0], ["---"] * len(rows[0]), *rows[1:]]),
        "",
    ]
    if s.require is None:
        lines.append("No gate (`--require`) was set.")
    else:
        under = below_gate(figures, s.require)
        if under:
            names = ", ".join(f"`{_md_cell(f.name)}` ({two_decimals(f.pass_at_k)})" for f in under)
            lines.append(
                f"**Gate failed**: pass@{s.k} below `--require {gate_text(s.require)}` for {names}."
            )
        else:
            lines.append(
                f"**Gate held**: every case's pass@{s.k} is at least {gate_text(s.require)}."
            )
    recorded = len(stored.records)
    lines += [
        "",
        f"Evaluation `{stored.id}`, {stored.status}: {recorded}/{len(stored.cases) * s.attempts}"
        f" attempts, k = {s.k}.",
    ]
    return "\n".join(lines) + "\n"


def render_junit(stored: StoredEvaluation) -> str:
    """JUnit XML: a testcase per case, failing under the gate (or, with no gate, unless all passed)."""
    s = stored.settings
    figures = stored.figures()
    by_case: dict[int, float] = {}
    for r in stored.records:
        by_case[r.case_index] = by_case.get(r.case_index, 0.0) + r.duration
    total_time = f"{sum(by_case.values()):.3f}"
    suite_name = f"{s.agent} version {s.version}"
    suites = ET.Element("testsuites", name="passk-tui", time=total_time)
    suite = ET.SubElement(
        suites, "testsuite", name=suite_name, timestamp=_time(stored.created) or "", time=total_time
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("evaluation", stored.id),
        ("agent", s.agent),
        ("version", str(s.version)),
        ("attempts", str(s.attempts)),
        ("k", str(s.k)),
        ("require", "" if s.require is None else gate_text(s.require)),
        ("status", stored.status),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    failures = skipped = 0
    for index, f in enumerate(figures):
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"passk.{s.agent}.v{s.version}",
            name=f.name,
            time=f"{by_case.get(index, 0.0):.3f}",
        )
        counts = f"{f.passed} passed, {f.wrong} wrong, {f.errored} errored of {f.n} attempts"
        shown = f"pass@1 {two_decimals(f.pass_at_1)}, pass@{s.k} {two_decimals(f.pass_at_k)}"
        if f.n == 0:
            skipped += 1
            ET.SubElement(case, "skipped", message="no attempt recorded")
        elif s.require is not None and f.pass_at_k < s.require:
            failures += 1
            message = (
                f"pass@{s.k} {two_decimals(f.pass_at_k)} is below --require "
                f"{gate_text(s.require)}: {counts}"
            )
            ET.SubElement(case, "failure", message=message, type="below-gate").text = shown
        elif s.require is None and not f.all_passed:
            failures += 1
            message = f"not every attempt passed: {counts}"
            ET.SubElement(case, "failure", message=message, type="not-all-passed").text = shown
        ET.SubElement(case, "system-out").text = f"{shown}; {counts}"
    for element in (suites, suite):
        element.set("tests", str(len(figures)))
        element.set("failures", str(failures))
        element.set("errors", "0")
        element.set("skipped", str(skipped))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


RENDERERS: dict[str, Callable[[StoredEvaluation], str]] = {
    ".json": render_json,
    ".csv": render_csv,
    ".md": render_md,
    ".xml": render_junit,
    ".html": render_report,
}
