"""A matrix as text: every target's figures per case, then the first against each other.

What a headless matrix prints on stdout (docs/matrix.md): one
row per case with each target's ``passed`` and ``pass@k``; then one row per case with,
for each other target, its change from the first, the matrix-wide Holm p and the
verdict; then per pair its count line and suite line, and the notes a comparison has.
"""

from __future__ import annotations

from collections.abc import Sequence

from passk_tui.core.render.compare_text import (
    count_line,
    notes,
    p_text,
    passed_cell,
    regression_lines,
    signed,
    suite_line,
)
from passk_tui.core.render.table import plain_columns
from passk_tui.core.stats.comparing.compare import CaseComparison
from passk_tui.core.stats.comparing.matrix import MatrixComparison
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.text.figure_text import UNDEFINED, two_decimals


def figures_rows(
    labels: Sequence[str], figures: Sequence[Sequence[CaseFigures]], k: int
) -> list[tuple[str, ...]]:
    """Header, then a row per case (the first target's order, then cases only others have):
    each target's ``passed`` and ``pass@k``; ``-`` where a target lacks the case."""
    header = ["case"]
    for label in labels:
        header += [f"{label} passed", f"{label} pass@{k}"]
    by_name = [{f.name: f for f in target} for target in figures]
    names = list(dict.fromkeys(f.name for target in figures for f in target))
    rows: list[tuple[str, ...]] = [tuple(header)]
    for name in names:
        row = [name]
        for found in by_name:
            f = found.get(name)
            row += (
                [UNDEFINED, UNDEFINED] if f is None else [passed_cell(f), two_decimals(f.pass_at_k)]
            )
        rows.append(tuple(row))
    return rows


def change_rows(labels: Sequence[str], matrix: MatrixComparison) -> list[tuple[str, ...]]:
    """Header, then a row per case the first target has: each other target's change from the
    first, its Holm p over every pair, its verdict."""
    header = ["case"]
    for label in labels[1:]:
        header += [f"{label} change", f"{label} p", f"{label} verdict"]
    by_name: list[dict[str, CaseComparison]] = [
        {c.name: c for c in pair.cases} for pair in matrix.pairs
    ]
    names = list(dict.fromkeys(c.name for pair in matrix.pairs for c in pair.cases))
    rows: list[tuple[str, ...]] = [tuple(header)]
    for name in names:
        row = [name]
        for found in by_name:
            c = found.get(name)
            row += [UNDEFINED] * 3 if c is None else [signed(c.change), p_text(c.p), str(c.verdict)]
        rows.append(tuple(row))
    return rows


def pair_lines(labels: Sequence[str], matrix: MatrixComparison) -> list[str]:
    """Per other target: its count line, its suite line, then the pair's notes."""
    lines: list[str] = []
    first = labels[0]
    for label, pair in zip(labels[1:], matrix.pairs, strict=True):
        lines.append(f"{label} vs {first}: {count_line(pair)}")
        lines.append(suite_line(pair, f"suite {label} vs {first}", label))
        lines += [f"{label} vs {first}: {note}" for note in notes(pair, (first, label))]
    return lines


def plain_matrix(
    labels: Sequence[str],
    figures: Sequence[Sequence[CaseFigures]],
    k: int,
    matrix: MatrixComparison,
) -> str:
    """The figures table, a blank line, the change table, then the lines of every pair."""
    return (
        plain_columns(figures_rows(labels, figures, k))
        + "\n"
        + plain_columns(change_rows(labels, matrix))
        + "\n".join(pair_lines(labels, matrix))
        + "\n"
    )


def matrix_regression_lines(labels: Sequence[str], matrix: MatrixComparison) -> list[str]:
    """For stderr (--fail-on-regression): each pair's regression lines, named by the pair."""
    return [
        f"{label} vs {labels[0]}: {line}"
        for label, pair in zip(labels[1:], matrix.pairs, strict=True)
        for line in regression_lines(pair)
    ]
