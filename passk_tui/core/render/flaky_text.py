"""``Flakiness`` as text: the table `passk-tui history --flaky` prints, then a line per version change."""

from __future__ import annotations

from passk_tui.core.render.compare_text import p_text
from passk_tui.core.render.table import plain_columns
from passk_tui.core.stats.comparing.compare import CaseComparison
from passk_tui.core.stats.trends.flakiness import Flakiness, VersionChange
from passk_tui.core.text.figure_text import UNDEFINED, two_decimals, yes_no
from passk_tui.core.text.terminal_text import terminal_safe

HEADERS = ("case", "evaluations", "verdict changes", "flaky")


def flaky_rows(flakiness: Flakiness) -> list[tuple[str, ...]]:
    """Header then one row per case, in the order the series first measured them."""
    rows: list[tuple[str, ...]] = [HEADERS]
    for c in flakiness.cases:
        rows.append((c.name, str(c.evaluations), str(c.verdict_changes), yes_no(c.flaky)))
    return rows


def version_change_line(change: VersionChange) -> str:
    """``version 1 -> 2: summary regressed 0.90 -> 0.30 (p 0.01), arithmetic improved …``;
    ``… : no case moved beyond chance``, or ``… : no case measured in both``."""
    head = f"version {change.before} -> {change.after}: "
    if change.comparison is None:
        return head + "no case measured in both"
    moved = change.moved
    if not moved:
        return head + "no case moved beyond chance"
    return head + ", ".join(f"{terminal_safe(c.name)} {_moved_words(c)}" for c in moved)


#: How a move is marked beside the version it moved to, readable without colour.
MOVE_MARK = {"improved": "▲", "regressed": "▼"}


def moves_cell(flakiness: Flakiness, name: str) -> str:
    """Where the case moved beyond chance: ``v2▼ v3▲`` (the version it moved to), else ``-``."""
    moves = [
        f"v{change.after}{MOVE_MARK[str(c.verdict)]}"
        for change in flakiness.changes
        for c in change.moved
        if c.name == name
    ]
    return " ".join(moves) or UNDEFINED


def case_move_lines(flakiness: Flakiness, name: str) -> list[str]:
    """``version 1 -> 2: regressed 1.00 -> 0.15 (p <0.001)``: each change the case moved at."""
    return [
        f"version {change.before} -> {change.after}: {_moved_words(c)}"
        for change in flakiness.changes
        for c in change.moved
        if c.name == name
    ]


def _moved_words(c: CaseComparison) -> str:
    return (
        f"{c.verdict} {two_decimals(c.a.pass_at_1)} -> {two_decimals(c.b.pass_at_1)} "
        f"(p {p_text(c.p)})"
    )


def plain_flakiness(flakiness: Flakiness) -> str:
    """The whole stdout: the table, then a line per version change (none with one version)."""
    lines = [version_change_line(change) + "\n" for change in flakiness.changes]
    return plain_columns(flaky_rows(flakiness)) + "".join(lines)
