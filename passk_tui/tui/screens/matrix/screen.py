"""The Matrix screen: a cell per case and target, coloured and marked by pass@k's band.

Each cell says the band's symbol (not colour alone), pass@k, its interval and the gate's
mark; the lines above say each target's gate and each pair's count and suite lines. ``s``
cycles the order (the file's, each target's weakest first, the largest difference);
Enter opens the case under the cursor on that target's Case screen. Everything shown is
the ``MatrixReading``'s (``evaluations.matrix_reading``): the screen only lays it out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from passk_tui.core.reading.vocabulary import CaseReading
from passk_tui.core.render.compare_text import count_line, suite_line
from passk_tui.core.render.matrix.cells import (
    DIFFERENCE,
    FILE_ORDER,
    Band,
    band,
    cell_text,
    interval_scale,
    matrix_order,
)
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.widgets.glyphs import follow_theme, palette
from passk_tui.tui.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from passk_tui.evaluations.matrix_reading import MatrixReading
    from passk_tui.tui.view import EvaluationView

#: Each band's colour variable (``tui.contrast``).
BAND_COLOUR = {
    Band.HIGH: "outcome-passed",
    Band.MID: "outcome-wrong",
    Band.LOW: "outcome-errored",
    Band.NONE: "muted-text",
}
GATE_COLOUR = {"pass": "outcome-passed", "fail": "gate-fail", "undecided": "gate-undecided"}
#: The widest a case name is drawn (the Case screen has it whole).
NAME_WIDTH = 24
#: The characters of a cell's interval scale, where the screen has room for it.
SCALE_WIDTH = 10


class MatrixTable(DataTable[Text]):
    """A cell per case and target; Enter opens the case on that target."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open case", tooltip="This case on this target"),
    ]

    def __init__(self) -> None:
        super().__init__(id="matrix-table", cursor_type="cell", zebra_stripes=True)


class MatrixScreen(Screen[None]):
    """Every case on every target; the gate of each; the first against each other."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", show=False, tooltip="The screen before"),
        Binding(
            "s",
            "sort",
            "Sort",
            tooltip="File order, each target's weakest first, largest difference",
        ),
    ]

    def __init__(
        self,
        reading: Callable[[], MatrixReading],
        view_of: Callable[[int], EvaluationView],
        *,
        live: bool = False,
    ) -> None:
        """``reading`` gives the matrix as stored now (asked again each second while ``live``);
        ``view_of`` a target's view, for its Case screen."""
        super().__init__()
        self._read = reading
        self.reading = reading()
        self._view_of = view_of
        self._live = live
        self.order: str | int = FILE_ORDER
        self._rows: list[int] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="matrix-gates")
        yield MatrixTable()
        yield Static(id="matrix-pairs")
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = "matrix"
        self.show()
        self.query_one(MatrixTable).focus()
        follow_theme(self, self.show)
        if self._live:
            self.set_interval(1.0, self.refresh_reading)

    def refresh_reading(self) -> None:
        """Read the matrix again (attempts landed while it runs)."""
        self.reading = self._read()
        self.show()

    def stop_live(self) -> None:
        """The run ended: read it once more, then no more."""
        self._live = False
        self.refresh_reading()

    @property
    def order_name(self) -> str:
        if self.order == FILE_ORDER:
            return "file order"
        if self.order == DIFFERENCE:
            return "largest difference first"
        return f"{self.reading.labels[int(self.order)]} weakest first"

    def show(self) -> None:
        """Fill the gate line, the cells and the pairs' lines from the reading."""
        reading = self.reading
        colours = palette(self.app)
        muted = colours.get("muted-text", "")
        gates = Text()
        for label, one in zip(reading.labels, reading.readings, strict=True):
            verdict = one.gate
            gates.append(f"{label}: ", style="bold")
            gates.append(
                "no gate" if verdict is None else f"gate {verdict}",
                style=colours.get(GATE_COLOUR.get(verdict or "", "muted-text"), ""),
            )
            gates.append("   ")
        gates.append(f"· {self.order_name}", style=muted)
        self.query_one("#matrix-gates", Static).update(gates)
        pairs = []
        for label, pair in zip(reading.labels[1:], reading.comparison.pairs, strict=True):
            first = reading.labels[0]
            pairs.append(f"{label} vs {first}: {count_line(pair)}")
            pairs.append(suite_line(pair, f"suite {label} vs {first}", label))
        legend = "● pass@k at least 0.90  ◐ at least 0.50  ○ below  · not yet  ✓ ✗ ? the gate"
        self.query_one("#matrix-pairs", Static).update(
            Text("\n".join(map(terminal_safe, [*pairs, legend])), style=muted)
        )
        self._fill(colours)

    def _cases(self) -> list[list[CaseReading | None]]:
        """Per case of the first target, each target's reading of it (None: it lacks it)."""
        by_target = [
            {case.figures.name: case for case in one.reading.cases} for one in self.reading.readings
        ]
        names = [case.figures.name for case in self.reading.readings[0].reading.cases]
        return [[found.get(name) for found in by_target] for name in names]

    def _fill(self, colours: dict[str, str]) -> None:
        table = self.query_one(MatrixTable)
        cursor = table.cursor_coordinate
        table.clear(columns=True)
        rows = self._cases()
        self._rows = matrix_order(rows, self.order)
        # The interval's digits in every cell when the screen has room for them (19 characters
        # and the table's padding), its scale beside them when it has room for that too.
        targets = len(self.reading.labels)
        names = [c.figures.name for row in rows for c in row if c is not None]
        name_width = min(NAME_WIDTH, max(map(len, names), default=4)) + 2
        room = (self.app.size.width - name_width) // max(1, targets)
        digits, scale = room >= 21, room >= 21 + SCALE_WIDTH + 1
        table.add_column("case", key="case")
        for label in self.reading.labels:
            table.add_column(terminal_safe(label), key=label)
        for position in self._rows:
            name = rows[position][0] or next(c for c in rows[position] if c is not None)
            shown = terminal_safe(name.figures.name)
            if len(shown) > NAME_WIDTH:
                shown = shown[: NAME_WIDTH - 1] + "…"
            cells = [Text(shown)]
            for case in rows[position]:
                if case is None:
                    cells.append(Text("-", style=colours.get("muted-text", "")))
                    continue
                style = colours.get(BAND_COLOUR[band(case)], "")
                text = cell_text(case, interval=digits)
                if scale:
                    text = f"{text:<19} {interval_scale(case, SCALE_WIDTH)}"
                cells.append(Text(text, style=style))
            table.add_row(*cells)
        if table.row_count:
            table.cursor_coordinate = cursor  # clamped by the table when rows went

    def on_resize(self) -> None:
        self.show()

    def action_sort(self) -> None:
        """The next order: file, each target's weakest first, then the largest difference."""
        orders: list[str | int] = [FILE_ORDER, *range(len(self.reading.labels)), DIFFERENCE]
        self.order = orders[(orders.index(self.order) + 1) % len(orders)]
        self.show()

    @on(DataTable.CellSelected, "#matrix-table")
    def _open(self, event: DataTable.CellSelected) -> None:
        """Enter on a target's cell: that case on that target."""
        from passk_tui.tui.screens.case import CaseScreen

        row, column = event.coordinate.row, event.coordinate.column
        if column == 0 or not 0 <= row < len(self._rows):
            return
        target = column - 1
        name = self._cases()[self._rows[row]][0]
        if name is None:
            return
        view = self._view_of(target)
        names = [c.figures.name for c in self.reading.readings[target].reading.cases]
        if name.figures.name in names:
            self.app.push_screen(CaseScreen(view, names.index(name.figures.name)))
