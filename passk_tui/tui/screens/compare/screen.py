"""The Compare screen: two evaluations per case, both grids side by side, regressions first."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from passk_tui.core.inputs.agent_definition import describe
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.reading.vocabulary import CaseComparison, Cell, ChangeVerdict
from passk_tui.core.render.compare_text import (
    count_line,
    notes,
    p_text,
    passed_cell,
    signed,
    suite_line,
)
from passk_tui.core.render.glyphs import SYMBOLS
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.widgets.glyphs import follow_theme, palette
from passk_tui.tui.widgets.key_bar import KeyBar
from passk_tui.tui.widgets.line_text import left_aligned, right_aligned
from passk_tui.tui.widgets.row_table import CasesTable

if TYPE_CHECKING:
    from passk_tui.store.comparison import ComparedEvaluations
    from passk_tui.store.models import StoredEvaluation

#: Attempts drawn per version before the grid ends in "…" (the Case view has them all).
GRID_SHOWN = 10
#: Regressions first, then improvements, then the unclear.
VERDICT_RANK = {ChangeVerdict.REGRESSED: 0, ChangeVerdict.IMPROVED: 1, ChangeVerdict.UNCLEAR: 2}
VERDICT_COLOUR = {
    ChangeVerdict.REGRESSED: "gate-fail",
    ChangeVerdict.IMPROVED: "outcome-passed",
    ChangeVerdict.UNCLEAR: "muted-text",
}
#: After an errored count when the regression is mostly errored attempts: the platform's.
MOSTLY_ERRORED = " !"
HEADERS = ("case", "A attempts", "B attempts", "A", "B", "A err", "B err", "change", "p", "verdict")
NUMERIC = {"A", "B", "A err", "B err", "change", "p"}


def grid_text(stored: StoredEvaluation, name: str) -> str:
    """A case's attempts as glyphs (``✓✗!✓✓``), cut to GRID_SHOWN."""
    progress = stored.progress()
    index = progress.case_names.index(name)
    cells = "".join(SYMBOLS[Cell(state)] for state in progress.cells[index])
    return cells if len(cells) <= GRID_SHOWN else cells[: GRID_SHOWN - 1] + "…"


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, ending in … when shortened."""
    return text if len(text) <= width else text[: width - 1] + "…"


def regressions_first(cases: tuple[CaseComparison, ...]) -> list[CaseComparison]:
    """Regressed, improved, unclear; within each the smallest p first, then A's order."""
    ranked = sorted(enumerate(cases), key=lambda item: (VERDICT_RANK[item[1].verdict], item[1].p))
    return [case for _, case in ranked]


def _cell(text: str, style: str, header: str, width: int) -> Text:
    """A cell padded to its column, numbers to the right, then the space before the next."""
    if header in NUMERIC:
        cell = right_aligned(text, width, style)
    else:
        cell = left_aligned(text, style)
        cell.append(" " * (width - len(text)))
    cell.append(" ")
    return cell


def version_text(label: str, stored: StoredEvaluation) -> str:
    s: Settings = stored.settings
    return terminal_safe(f"{label}: {s.agent} v{s.version} ({stored.id}, {stored.status})")


class CompareScreen(Screen[None]):
    """Did the change help? Per case: both versions' attempts, the change, Holm's p, the verdict."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", show=False, tooltip="The screen before"),
        Binding("s", "swap", "Swap A and B", tooltip="The other evaluation as the baseline"),
    ]

    def __init__(self, compared: ComparedEvaluations) -> None:
        super().__init__()
        self.compared = compared
        self._rows: list[CaseComparison] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="compare-versions")
        yield Static(id="compare-agents")
        yield Static(id="compare-counts")
        yield Static(id="compare-suite")
        yield CasesTable(id="compare-table")
        yield Static(id="compare-notes")
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = "compare"
        self.show()
        self.query_one(DataTable).focus()
        follow_theme(self, self.show)

    def show(self) -> None:
        """Fill the lines and the table from the comparison (again after a swap)."""
        compared = self.compared
        comparison = compared.comparison
        colours = palette(self.app)
        muted = colours.get("muted-text", "")
        versions = Text(version_text("A", compared.baseline), style="bold")
        versions.append("  →  ")
        versions.append(version_text("B", compared.candidate), style="bold")
        self.query_one("#compare-versions", Static).update(versions)
        ran = [
            f"{side}: {terminal_safe(describe(stored.definition))}"
            for side, stored in (("A", compared.baseline), ("B", compared.candidate))
        ]
        # As text, one line each (app.tcss): a long command ends in "…".
        self.query_one("#compare-agents", Static).update(Text("\n".join(ran)))
        counts = Text(count_line(comparison))
        counts.append("  ·  ")
        test = "anytime-valid e-value test" if comparison.anytime else "Fisher's exact test"
        counts.append(
            f"{test} per case, Holm-adjusted; a verdict where p < {float(comparison.alpha):g}",
            style=muted,
        )
        self.query_one("#compare-counts", Static).update(counts)
        suite_style = colours.get(VERDICT_COLOUR[comparison.suite.verdict], "")
        self.query_one("#compare-suite", Static).update(
            Text(suite_line(comparison), style=f"bold {suite_style}")
        )
        warnings = compared.warnings()
        self.query_one("#compare-notes", Static).update(
            Text(
                "\n".join(
                    map(terminal_safe, [*notes(comparison), *compared.cost_lines(), *warnings])
                ),
                style=muted,
            )
        )
        table = self.query_one(DataTable)
        table.clear(columns=True)
        self._rows = regressions_first(comparison.cases)
        cells = [self._cells(c, colours) for c in self._rows]
        widths = [
            max([len(header), *(len(row[position][0]) for row in cells)])
            for position, header in enumerate(HEADERS)
        ]
        # Each cell ends in its own space (the table pads nothing): ten columns fit 80. Wider
        # than the screen (a long case name, a p of <0.001), the names give way (cut with …;
        # the Case view has them whole) so that the verdict stays in view.
        overflow = sum(widths) + len(widths) - self.app.size.width
        if overflow > 0:
            widths[0] = max(len(HEADERS[0]) + 4, widths[0] - overflow)
            for row in cells:
                row[0] = (cut(row[0][0], widths[0]), row[0][1])
        table.cell_padding = 0
        for header, width in zip(HEADERS, widths, strict=True):
            table.add_column(_cell(header, "", header, width), key=header, width=width + 1)
        for row in cells:
            table.add_row(
                *(
                    _cell(text, style, header, width)
                    for (text, style), header, width in zip(row, HEADERS, widths, strict=True)
                )
            )

    def on_resize(self) -> None:
        self.show()

    def _cells(self, c: CaseComparison, colours: dict[str, str]) -> list[tuple[str, str]]:
        a, b = self.compared.baseline, self.compared.candidate
        errored = colours.get("outcome-errored", "")
        b_errored = str(c.b.errored) + (MOSTLY_ERRORED if c.mostly_errored else "")
        verdict_style = colours.get(VERDICT_COLOUR[c.verdict], "")
        if c.verdict is ChangeVerdict.REGRESSED:
            verdict_style = f"bold {verdict_style}"
        return [
            (terminal_safe(c.name), ""),
            (grid_text(a, c.name), ""),
            (grid_text(b, c.name), ""),
            (passed_cell(c.a), ""),
            (passed_cell(c.b), ""),
            (str(c.a.errored), errored if c.a.errored else ""),
            (b_errored, f"bold {errored}" if c.mostly_errored else errored if c.b.errored else ""),
            (signed(c.change), ""),
            (p_text(c.p), ""),
            (str(c.verdict), verdict_style),
        ]

    def action_swap(self) -> None:
        """B becomes the baseline: the comparison is made again by the core, the other way."""
        from passk_tui.store.comparison import compare_stored

        compared = self.compared
        self.compared = compare_stored(
            compared.candidate, compared.baseline, compared.comparison.confidence
        )
        self.show()

    @on(DataTable.RowSelected, "#compare-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        from passk_tui.tui.screens.compare.compare_case import CompareCaseScreen

        if 0 <= event.cursor_row < len(self._rows):
            self.app.push_screen(CompareCaseScreen(self.compared, self._rows[event.cursor_row]))
