"""Exports of a comparison, the format following the suffix: .json .csv .md .html.

Each renderer takes the ``ComparedEvaluations`` (both stored evaluations and
their ``Comparison``) and returns text; the .html report with both versions'
attempts is in store/compare_html.py. The p-values are
written as floats that parse back exactly (``repr``); the .md is the plain
table with the count line and the notes, for a PR comment or a CI summary.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from fractions import Fraction
from math import inf
from pathlib import Path
from typing import Any

from passk_tui.core.reading.vocabulary import (
    CaseComparison,
    CaseFigures,
    ChangeVerdict,
    Comparison,
    SuiteComparison,
)
from passk_tui.core.render.compare_text import comparison_rows, count_line, notes, suite_line
from passk_tui.reports.compare_html import render_html
from passk_tui.reports.export import check_export_path, figures_json, md_cell, md_row, write_file
from passk_tui.reports.report import iso_time
from passk_tui.store.comparison import ComparedEvaluations
from passk_tui.store.models import StoredEvaluation


def export_comparison(compared: ComparedEvaluations, path: str | Path) -> Path:
    """Write the comparison to ``path`` in the format its suffix names; atomic (temp + rename)."""
    path = check_comparison_export(str(path))
    write_file(path, RENDERERS[path.suffix.lower()](compared))
    return path


def check_comparison_export(text: str) -> Path:
    """`compare --export`: refused (InputError, exit 2) for an unknown suffix or a missing folder."""
    return check_export_path(text, tuple(RENDERERS))


def _evaluation_json(stored: StoredEvaluation) -> dict[str, Any]:
    s = stored.settings
    return {
        "id": stored.id,
        "created": iso_time(stored.created),
        "status": stored.status,
        "agent": s.agent,
        "version": s.version,
        "stack": s.stack,
        "agent_definition": stored.definition,
        "attempts": s.attempts,
        "k": s.k,
        "cases_path": s.cases_path,
        "cases_sha256": stored.cases_sha256,
    }


def _case_json(c: CaseComparison, comparison: Comparison) -> dict[str, Any]:
    return {
        "name": c.name,
        "a": figures_json(c.a),
        "b": figures_json(c.b),
        "change": None if c.change is None else float(c.change),
        "p_raw": float(c.p_raw),
        "p_fisher": None if comparison.anytime else float(c.p_raw),
        "p": float(c.p),
        "verdict": str(c.verdict),
        "mostly_errored": c.mostly_errored,
    }


def render_json(compared: ComparedEvaluations) -> str:
    """Both evaluations, the method and level, every compared case, the cases in only one."""
    comparison = compared.comparison
    document = {
        "a": _evaluation_json(compared.baseline),
        "b": _evaluation_json(compared.candidate),
        "method": comparison.method,
        "confidence": float(comparison.confidence),
        "alpha": float(comparison.alpha),
        "counts": _verdict_counts(comparison),
        "suite": _suite_json(comparison.suite),
        "cases": [_case_json(c, comparison) for c in comparison.cases],
        "only_in_a": list(comparison.only_a),
        "only_in_b": list(comparison.only_b),
        "warnings": compared.warnings(),
        "cost": _cost_json(compared),
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _suite_json(suite: SuiteComparison) -> dict[str, Any]:
    """The suite line's figures; a figure that is not a finite number (none, or infinite) is
    null, so the document stays JSON, and ``infinite`` names those of its nulls that are
    infinite (the odds ratio and its interval's high end when B is never worse), as the line's
    ``inf``."""
    figures = {"odds_ratio": suite.odds_ratio, "low": suite.low, "high": suite.high}
    return {
        "better": suite.better,
        "worse": suite.worse,
        "same": suite.same,
        **{name: _finite(value) for name, value in figures.items()},
        "infinite": [name for name, value in figures.items() if value == inf],
        "p": suite.p,
        "verdict": str(suite.verdict),
        "method": suite.method,
    }


def _finite(value: float | None) -> float | None:
    return None if value is None or value in (inf, -inf) else value


def _cost_json(compared: ComparedEvaluations) -> dict[str, Any]:
    """Each side's total and, per compared case, its cost per passed attempt (null: no
    price, no usage or no pass): floats, the exact figures being each side's own export's."""

    def money(value: Fraction | None) -> float | None:
        return None if value is None else float(value)

    a, b = compared.costs()
    total_a, total_b = compared.cost_totals()
    return {
        "a": money(total_a),
        "b": money(total_b),
        "cost_per_pass": {
            x.name: {"a": money(x.cost_per_pass), "b": money(y.cost_per_pass)}
            for x, y in zip(a, b, strict=True)
        },
    }


def _verdict_counts(comparison: Comparison) -> dict[str, int]:
    return {str(v): len(comparison.with_verdict(v)) for v in ChangeVerdict}


CSV_HEADER = [
    "case",
    "a_attempts",
    "a_passed",
    "a_wrong",
    "a_errored",
    "a_pass@1",
    "b_attempts",
    "b_passed",
    "b_wrong",
    "b_errored",
    "b_pass@1",
    "change",
    "p_fisher",
    "p_raw",
    "p",
    "verdict",
    "mostly_errored",
]


def _csv_counts(f: CaseFigures) -> list[Any]:
    return [f.n, f.passed, f.wrong, f.errored, _csv_float(f.pass_at_1)]


def _csv_float(value: Fraction | None) -> str:
    """A figure that parses back exactly; empty when undefined."""
    return "" if value is None else repr(float(value))


def render_csv(compared: ComparedEvaluations) -> str:
    """A row per compared case; then a row per case in only one, its verdict ``only in A`` or B."""
    comparison = compared.comparison
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for c in comparison.cases:
        writer.writerow(
            [
                c.name,
                *_csv_counts(c.a),
                *_csv_counts(c.b),
                _csv_float(c.change),
                "" if comparison.anytime else repr(float(c.p_raw)),
                repr(float(c.p_raw)),
                repr(float(c.p)),
                str(c.verdict),
                "yes" if c.mostly_errored else "no",
            ]
        )
    blank = [""] * (len(CSV_HEADER) - 3)
    for side, names in (("A", comparison.only_a), ("B", comparison.only_b)):
        for name in names:
            writer.writerow([name, *blank, f"only in {side}", ""])
    return out.getvalue()


def _title(stored: StoredEvaluation) -> str:
    return f"{md_cell(stored.settings.agent)} version {stored.settings.version} (`{stored.id}`)"


def render_md(compared: ComparedEvaluations) -> str:
    """The comparison table as Markdown, the count line, the notes, the method."""
    comparison = compared.comparison
    rows = comparison_rows(comparison)
    lines = [
        f"### passk-tui compare: A {_title(compared.baseline)}, B {_title(compared.candidate)}",
        "",
        *(md_row(row) for row in [rows[0], ["---"] * len(rows[0]), *rows[1:]]),
        "",
        f"**{count_line(comparison)}**",
        "",
        md_cell(suite_line(comparison)),
        "",
        *(
            f"- {md_cell(line)}"
            for line in [*notes(comparison), *compared.cost_lines(), *compared.warnings()]
        ),
        *(f"- {md_cell(line)}" for line in compared.definition_lines()),
        "",
        f"{comparison.method}; a verdict where the adjusted p is below {float(comparison.alpha):g}"
        f" (confidence {float(comparison.confidence):g}). The suite line: "
        f"{comparison.suite.method}.",
    ]
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Callable[[ComparedEvaluations], str]] = {
    ".json": render_json,
    ".csv": render_csv,
    ".md": render_md,
    ".html": render_html,
}
