"""Exports of a matrix (``--version 1,2,3 --export``): .json with every target, .html as a matrix.

The .json holds each target's own export document whole (the one ``--export x.json``
writes for a single evaluation) under ``targets``, and the first target against each
other under ``comparisons`` with the matrix-wide Holm p; the .html is one page with a
cell per case and target (symbol, pass@k, interval bar), the changes, and each pair's
suite line. Both read the ``MatrixReading``; neither computes a figure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from passk_tui.core.inputs.target_list import MatrixTarget
from passk_tui.core.reading.vocabulary import MATRIX_HOLM, CaseFigures, MatrixComparison, Reading
from passk_tui.core.render.compare_text import count_line, p_text, signed, suite_line
from passk_tui.core.render.matrix.cells import band, cell_text
from passk_tui.reports.compare_export import _case_json, _suite_json, _verdict_counts
from passk_tui.reports.export import check_export_path, render_json, write_file
from passk_tui.reports.html_page import esc, interval_bar, page
from passk_tui.reports.report import build_report
from passk_tui.store.models import StoredEvaluation


class TargetReading(Protocol):
    """One target's reading, as the matrix's reader gives it (``evaluations.matrix_reading``)."""

    @property
    def figures(self) -> Sequence[CaseFigures]: ...

    @property
    def reading(self) -> Reading: ...


class MatrixReading(Protocol):
    """What a matrix export reads: ``evaluations.matrix_reading.MatrixReading``, which the
    reports layer may not import (it sits above it)."""

    @property
    def group_id(self) -> str: ...

    @property
    def targets(self) -> tuple[MatrixTarget, ...]: ...

    @property
    def stored(self) -> tuple[StoredEvaluation, ...]: ...

    @property
    def labels(self) -> list[str]: ...

    @property
    def readings(self) -> Sequence[TargetReading]: ...

    @property
    def comparison(self) -> MatrixComparison: ...

    @property
    def k(self) -> int: ...


#: What a matrix can be exported as.
MATRIX_SUFFIXES = (".json", ".html")


def check_matrix_export(text: str) -> Path:
    """A matrix's --export: refused (InputError, exit 2) for another suffix or a missing folder."""
    return check_export_path(text, MATRIX_SUFFIXES)


def export_matrix(reading: MatrixReading, path: str | Path) -> Path:
    """Write the matrix to ``path`` in the format its suffix names; atomic (temp + rename)."""
    path = check_matrix_export(str(path))
    render = render_matrix_json if path.suffix.lower() == ".json" else render_matrix_html
    write_file(path, render(reading))
    return path


def render_matrix_json(reading: MatrixReading) -> str:
    """Every target's own document, then the first against each other."""
    confidence = reading.stored[0].settings.confidence
    targets = [
        {
            "label": label,
            "agent": target.agent,
            "version": target.version,
            **json.loads(render_json(build_report(stored, confidence))),
        }
        for label, target, stored in zip(
            reading.labels, reading.targets, reading.stored, strict=True
        )
    ]
    comparisons = [
        {
            "a": reading.labels[0],
            "b": label,
            "method": pair.method,
            "confidence": float(pair.confidence),
            "counts": _verdict_counts(pair),
            "suite": _suite_json(pair.suite),
            "cases": [_case_json(c, pair) for c in pair.cases],
        }
        for label, pair in zip(reading.labels[1:], reading.comparison.pairs, strict=True)
    ]
    document: dict[str, Any] = {
        "group": reading.group_id,
        "targets": targets,
        "comparisons": comparisons,
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def render_matrix_html(reading: MatrixReading) -> str:
    """One page: the matrix of cells, the changes from the first, each pair's lines."""
    labels = reading.labels
    head = "".join(f"<th>{esc(label)}</th>" for label in labels)
    rows = []
    for figures in reading.readings[0].figures:
        cells = []
        for one in reading.readings:
            case = next((c for c in one.reading.cases if c.figures.name == figures.name), None)
            if case is None:
                cells.append("<td>-</td>")
                continue
            found = case.intervals.pass_at_k
            bar = interval_bar(found) if found is not None else ""
            cells.append(
                f'<td class="num cell {band(case).value}">{esc(cell_text(case))}{bar}</td>'
            )
        rows.append(f'<tr><td class="name">{esc(figures.name)}</td>{"".join(cells)}</tr>')
    changes = []
    for label, pair in zip(labels[1:], reading.comparison.pairs, strict=True):
        lines = "".join(
            f'<tr><td class="name">{esc(c.name)}</td><td class="num">{esc(signed(c.change))}'
            f'</td><td class="num">{esc(p_text(c.p))}</td><td>{esc(c.verdict)}</td></tr>'
            for c in pair.cases
        )
        changes.append(
            f"<h2>{esc(label)} against {esc(labels[0])}</h2>"
            f'<p class="note">{esc(count_line(pair))}</p>'
            f'<p class="note">{esc(suite_line(pair, "suite", label))}</p>'
            '<table class="figures"><thead><tr><th>case</th><th>change</th><th>p</th>'
            f"<th>verdict</th></tr></thead><tbody>{lines}</tbody></table>"
        )
    k = reading.k
    body = (
        f"<h1>Matrix: {esc(', '.join(labels))}</h1>"
        f'<p class="subtitle">group {esc(reading.group_id)}; each cell: pass@{k}, its interval, '
        "the gate's mark; ● at least 0.90, ◐ at least 0.50, ○ below, · not yet defined</p>"
        f'<table class="figures matrix"><thead><tr><th>case</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        f'<p class="note">p: {esc(MATRIX_HOLM)}</p>{"".join(changes)}'
    )
    return page(f"passk-tui matrix {', '.join(labels)}", body, attempt_lists=False)
