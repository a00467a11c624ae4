"""The Results table's columns and cells: counts, figures, each case's interval bar (and its
ends in digits where they fit, as on the Run screen) and verdict.

Every cell is text from the core (``table_rows``, the gate's ``Reading``); this
only lays it out. The cells end in their separating space (the table has no
padding of its own), so an 80-column terminal holds the bar beside the digits,
and no styled run starts with spaces (see ``widgets/line_text``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.text import Text

from passk_tui.core.reading.vocabulary import CaseFigures, CaseReading, Reading
from passk_tui.core.text.figure_text import interval_text, level_text, two_decimals
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.screens.results.results_order import COLUMN_BY_KEY, Order
from passk_tui.tui.widgets.forest import interval_bar
from passk_tui.tui.widgets.line_text import left_aligned, right_aligned

#: The widest a case name's column gets (longer names are cut).
NAME_WIDTH_MAX = 40
#: Columns whose cells are numbers: right-aligned, as on the Run grid.
NUMERIC = {"a", "w", "e", "1", "p", "h"}
#: The bar's width range: narrower is unreadable, wider tells nothing more.
BAR_MIN, BAR_MAX = 8, 24
#: Narrower than this, pass^k gives up its column to the bar.
BAR_READABLE = 12
#: The bar column's, its digits' and the verdict column's keys (not sort columns).
BAR, RANGE, GATE = "bar", "range", "gate"
#: Verdict -> the palette colour its bar and word take.
VERDICT_COLOUR = {"pass": "outcome-passed", "fail": "gate-fail", "undecided": "gate-undecided"}


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    label: str
    width: int
    #: The sort mark (▼ or ▲) of the sorted column: drawn in the column's separating space,
    #: so sorting never widens a column and the table never shifts.
    arrow: str = ""


def _cell_texts(row: tuple[str, ...], f: CaseFigures, case: CaseReading) -> dict[str, str]:
    """One case's cells as text by column key (the bar is drawn apart)."""
    return {
        "n": terminal_safe(row[0]),  # the name as shown, so that it is measured as shown
        "a": row[1],
        "w": row[2],
        "e": row[3],
        "1": row[4],
        "p": row[5],
        GATE: case.verdict or "",
        RANGE: interval_text(interval) if (interval := case.intervals.pass_at_k) else "-",
        "y": row[6],
        "h": two_decimals(f.pass_hat_k),
    }


def layout(
    rows: list[tuple[str, ...]],
    reading: Reading,
    order: Order,
    width: int,
) -> list[Column]:
    """The columns in screen order, each as wide as its widest cell; the bar takes what is left
    of ``width`` (between BAR_MIN and BAR_MAX), so that at 80 columns it sits on screen, and
    where a readable bar leaves room for them, its ends in digits follow it."""
    k = reading.k
    texts = [
        _cell_texts(row, case.figures, case)
        for row, case in zip(rows[1:], reading.cases, strict=True)
    ]
    keys = ["n", "a", "w", "e", "1", "p", BAR]
    if reading.require is not None:
        keys.append(GATE)
    keys += ["y", "h"]
    columns: list[Column] = []
    for key in keys:
        if key == BAR:
            columns.append(Column(BAR, "", 0))
            continue
        label = "gate" if key == GATE else COLUMN_BY_KEY[key].label.format(k=k)
        longest = max((len(t[key]) for t in texts), default=0)
        if key == "n":
            longest = min(longest, NAME_WIDTH_MAX)
        arrow = "" if key == GATE else order.arrow(key).strip()
        columns.append(Column(key, label, max(len(label), longest), arrow))
    # What the other columns leave goes to the bar; where that is too little for a readable
    # bar, pass^k (the last, least read column: the Case screen has it) makes room.
    used = sum(c.width + 1 for c in columns if c.key != BAR)
    if width - used - 1 < BAR_READABLE:
        hat = next(c for c in columns if c.key == "h")
        columns.remove(hat)
        used -= hat.width + 1
    digits = max(len(t[RANGE]) for t in texts) if texts else 0
    if texts and width - used - 1 - (digits + 1) >= BAR_READABLE:
        columns.insert(columns.index(Column(BAR, "", 0)) + 1, Column(RANGE, "", digits))
        used += digits + 1
    bar = max(BAR_MIN, min(BAR_MAX, width - used - 1))
    long_label = f"pass@{k} {level_text(reading.level)} CI"
    label = long_label if len(long_label) <= bar else f"{level_text(reading.level)} CI"
    return [Column(BAR, label, bar) if c.key == BAR else c for c in columns]


def headings(columns: list[Column]) -> list[Text]:
    """Each column's label; the sorted one's mark after it where the column has room (a name
    column), else in place of its separating space, the next label then moved off it."""
    cells = []
    marked = False  # the column before put its mark where the separating space was
    for c in columns:
        beside = bool(c.arrow) and c.key not in NUMERIC and len(c.label) + 2 <= c.width
        label = f"{c.label} {c.arrow}" if beside else c.label
        if marked and c.key not in NUMERIC and len(label) + 1 <= c.width:
            # Off the mark by a space in a run of its own (no run starts with a space).
            cell = right_aligned(label, len(label) + 1)
            cell.append(" " * (c.width - len(label)))
        else:
            cell = _aligned(c, label, "")
        marked = bool(c.arrow) and not beside
        if marked:
            cell = cell[:-1]
            cell.append(c.arrow)
        cells.append(cell)
    return cells


def row_cells(
    row: tuple[str, ...],
    case: CaseReading,
    columns: list[Column],
    reading: Reading,
    under_gate: bool,
    colours: Mapping[str, str],
) -> list[Text]:
    """One row's cells: counts coloured by outcome, the failing figure marked, the bar, the verdict."""
    f = case.figures
    texts = _cell_texts(row, f, case)
    muted = colours.get("muted-text", "")
    verdict_colour = colours.get(VERDICT_COLOUR.get(case.verdict or "", ""), "")
    styles = {
        "w": f"bold {colours.get('outcome-wrong', '')}" if f.wrong else muted,
        "e": f"bold {colours.get('outcome-errored', '')}" if f.errored else muted,
        "p": f"bold reverse {colours.get('gate-fail', '')}" if under_gate else "",
        GATE: f"bold {verdict_colour}" if case.verdict == "fail" else verdict_colour,
        "y": colours.get("outcome-passed", "") if f.all_passed else "",
    }
    cells = []
    for column in columns:
        if column.key == BAR:
            roles = {
                "axis": muted,
                "gate": f"bold {colours.get('foreground', '')}",
                "range": verdict_colour or colours.get("primary", ""),
            }
            cells.append(bar_text(case, column.width, reading, roles))
        else:
            cells.append(_aligned(column, texts[column.key], styles.get(column.key, "")))
    return cells


def bar_text(case: CaseReading, width: int, reading: Reading, roles: Mapping[str, str]) -> Text:
    """The pass@k interval as a bar on [0, 1], the estimate ●, the gate ┊; only the axis while
    pass@k is undefined (fewer than k attempts)."""
    text = Text()
    pieces = interval_bar(
        case.intervals.pass_at_k, case.figures.pass_at_k, width, reading.require, "range"
    )
    for char, role in pieces:
        text.append(char, style=roles[role])
    text.append(" ")
    return text


def _aligned(column: Column, text: str, style: str) -> Text:
    """A cell padded to its column and followed by the space that separates it from the next."""
    if column.key in NUMERIC:
        cell = right_aligned(text, column.width, style)
    else:
        if len(text) > column.width:
            text = text[: column.width - 1] + "…"
        cell = left_aligned(text, style)
        cell.append(" " * (column.width - len(text)))
    cell.append(" ")
    return cell
