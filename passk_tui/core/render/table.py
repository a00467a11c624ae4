"""The plain results table a headless run prints, with the interval and gate columns on demand.

Its columns and digits are a contract: scripts read it, tests hold it to the character.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.text.figure_text import UNDEFINED, interval_text, two_decimals, yes_no
from passk_tui.core.text.terminal_text import terminal_safe

if TYPE_CHECKING:
    from passk_tui.core.stats.gating.gate import Reading

HEADERS = ("case", "passed", "wrong", "errored", "pass@1", "pass@{k}", "all passed")


def table_rows(
    figures: Sequence[CaseFigures],
    k: int,
    reading: Reading | None = None,
    *,
    pass_hat: bool = False,
) -> list[tuple[str, ...]]:
    """Header then one row per case, every cell as text; undefined figures are ``-``.

    With a ``reading``, the pass@k interval column follows ``all passed``, and
    the gate column after it when the reading has a gate; ``pass_hat`` adds
    pass^k after pass@k (the exports and the app show it, the plain table not).
    """
    header = [h.format(k=k) for h in HEADERS]
    if pass_hat:
        header.insert(6, f"pass^{k}")
    header += _reading_header(reading)
    rows = [tuple(header)]
    for index, f in enumerate(figures):
        row = [
            f.name,
            f"{f.passed}/{f.n}",
            str(f.wrong),
            str(f.errored),
            two_decimals(f.pass_at_1),
            two_decimals(f.pass_at_k),
            yes_no(f.all_passed),
        ]
        if pass_hat:
            row.insert(6, two_decimals(f.pass_hat_k))
        if reading is not None:
            case = reading.cases[index]
            interval = case.intervals.pass_at_k
            row.append(interval_text(interval) if interval else UNDEFINED)
            if reading.require is not None:
                row.append(case.verdict or UNDEFINED)
        rows.append(tuple(row))
    return rows


def _reading_header(reading: Reading | None) -> list[str]:
    if reading is None:
        return []
    return [reading.ci_header] + (["gate"] if reading.require is not None else [])


def plain_table(figures: Sequence[CaseFigures], k: int, reading: Reading | None = None) -> str:
    """The plain results table (with ``--confidence``, its two added columns)."""
    return plain_columns(table_rows(figures, k, reading))


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
