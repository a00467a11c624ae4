"""The plain results table, exactly as PRODUCT.md shows it, and the gate."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from passk_tui.core.figures import CaseFigures, two_decimals
from passk_tui.core.terminal_text import terminal_safe

HEADERS = ("case", "passed", "wrong", "errored", "pass@1", "pass@{k}", "all passed")


def table_rows(figures: Sequence[CaseFigures], k: int) -> list[tuple[str, ...]]:
    """Header then one row per case, every cell as text."""
    header = tuple(h.format(k=k) for h in HEADERS)
    rows = [header]
    for f in figures:
        rows.append(
            (
                f.name,
                f"{f.passed}/{f.n}",
                str(f.wrong),
                str(f.errored),
                two_decimals(f.pass_at_1),
                two_decimals(f.pass_at_k),
                "yes" if f.all_passed else "no",
            )
        )
    return rows


def plain_table(figures: Sequence[CaseFigures], k: int) -> str:
    """The results table as PRODUCT.md shows it."""
    return plain_columns(table_rows(figures, k))


def plain_columns(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns padded to their widest cell, two spaces apart, a dash rule under each header.

    Cells are made terminal-safe first: a newline in a name must not split a row.
    """
    rows = [[terminal_safe(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    rule = ["-" * w for w in widths]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [rows[0], rule, *rows[1:]]
    ]
    return "\n".join(lines) + "\n"


def below_gate(figures: Sequence[CaseFigures], require: Fraction) -> list[CaseFigures]:
    """The cases whose exact pass@k is under the gate (0.899 fails 0.9)."""
    return [f for f in figures if f.pass_at_k < require]


def gate_text(require: Fraction) -> str:
    """The gate as a user writes it (0.9), not as the fraction it is compared as (9/10)."""
    return f"{float(require):g}"


def gate_lines(failing: Sequence[CaseFigures], k: int, shown: str) -> list[str]:
    """One line per case under the gate, with its figure, for stderr (both faces say the same)."""
    return [
        f"gate: {f.name}: pass@{k} {two_decimals(f.pass_at_k)} is below --require {shown}"
        for f in failing
    ]
