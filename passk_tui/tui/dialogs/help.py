"""The `?` screen: what every figure, outcome and glyph means, and the keys of the screen under it.

The keys are read from that screen's bindings (``palette_commands``), the table the keys
line and the palette read too: a key added to a screen is listed here without a word more.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from passk_tui.core.reading.vocabulary import Cell
from passk_tui.tui.app.palette_commands import key_rows
from passk_tui.tui.screens.compare.screen import MOSTLY_ERRORED
from passk_tui.tui.screens.history import MARK as HISTORY_MARK
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS, THEME_COLOUR, follow_theme, palette
from passk_tui.tui.widgets.grid_lines import SAMPLED_MARK

#: What the figures mean, in the README's words (n attempts of a case, c of them passed).
DEFINITIONS: tuple[tuple[str, str], ...] = (
    ("pass@1", "c / n: the share of the case's attempts that passed."),
    (
        "pass@k",
        "1 - C(n-c, k) / C(n, k): the chance that at least one of k attempts, drawn from the "
        "n made, passed (the unbiased estimator; 1 when fewer than k failed). "
        "With n=5, c=2, k=2 it is 0.70.",
    ),
    (
        "pass^k",
        "C(c, k) / C(n, k): the chance that all k attempts drawn from the n passed. "
        "pass@k says 'can it?', pass^k says 'does it, every time?'.",
    ),
    ("all passed", "yes when every attempt passed (c == n); - while a case is unfinished."),
    (
        "intervals",
        "A range [L, U] around a figure: the exact (Clopper-Pearson) interval for the "
        "per-attempt pass rate at the chosen confidence, mapped through the figure "
        "(pass@k in [1-(1-L)^k, 1-(1-U)^k], pass^k in [L^k, U^k]). Five attempts cannot tell "
        "0.9 from 0.95: the interval says how sure the figure is. On Results a bar on [0, 1] "
        "draws it (├──●──┤, ● the figure, ┊ the gate); an adaptive run's is anytime-valid.",
    ),
    (
        "-",
        "A figure that is not defined yet: fewer than k attempts finished (live, cancelled "
        "or interrupted). Never shown as 1.00.",
    ),
    (
        "wrong",
        "The Turn completed, but the answer failed the check: the agent's behaviour to fix.",
    ),
    (
        "errored",
        "The Turn did not complete (failed, stopped, cancelled, timed out) or no Turn could "
        "be had: it points at the platform, the provider or a tool. Both count as not passing.",
    ),
    (
        "gate",
        "--require X: every case's pass@k must be at least X (the exact figure: 0.899 fails "
        "0.9). The failing figure is marked on Results. No mean across cases is ever shown.",
    ),
)

#: What each attempt glyph means.
GLYPHS: dict[Cell, str] = {
    Cell.PENDING: "not started yet",
    Cell.RUNNING: "its Run is in flight",
    Cell.RETRYING: "waiting to retry a request that failed",
    Cell.PASSED: "the answer passed the check",
    Cell.WRONG: "the Turn completed, the answer failed the check",
    Cell.ERRORED: "no completed Turn",
}

#: The other marks the screens draw, beside the attempt glyphs.
MARKS: tuple[tuple[str, str], ...] = (
    (SAMPLED_MARK, "sampling: the case still has attempts to come (Run)"),
    ("▲ ▼", "the sorted column, lowest or highest first (Results)"),
    ("├─●─┤ ┊", "an interval, its figure, the gate (Results, intervals plot)"),
    (HISTORY_MARK, "marked to compare (History)"),
    (MOSTLY_ERRORED.strip(), "after B's errored count: a regression mostly of errored attempts"),
)
#: The keys every list and table moves by (Textual's and ours; not actions, so not above).
MOVES = "↑ ↓ PgUp PgDn Home End move the cursor; ← → a long grid's attempts or a wide table"


class HelpScreen(ModalScreen[None]):
    """Definitions, glyphs and the keys of ``under`` (the screen help was opened on)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "app.pop_screen", "Close", tooltip="Close help"),
    ]

    def __init__(self, under: Screen[Any] | None = None) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(self.body(), id="help-text")

    def on_mount(self) -> None:
        follow_theme(self, lambda: self.query_one("#help-text", Static).update(self.body()))

    def body(self) -> Group:
        """Definitions, glyphs and keys, coloured as the other screens colour them."""
        colours = palette(self.app)

        def grid(rows: list[tuple[Text, str]] | list[tuple[Text, Text]]) -> Table:
            table = Table.grid(padding=(0, 2))
            table.add_column(no_wrap=True)
            table.add_column()
            for term, meaning in rows:
                table.add_row(term, meaning)
            return table

        glyphs = [
            (
                Text(
                    f"{SYMBOLS[cell]} {NAMES[cell]}",
                    style=f"bold {colours.get(THEME_COLOUR[cell], '')}",
                ),
                meaning,
            )
            for cell, meaning in GLYPHS.items()
        ]
        muted = colours.get("muted-text", "")
        return Group(
            Text("Keys here (Ctrl+P names them all too; Escape closes this)", style="bold"),
            grid(self._keys()),
            Text(MOVES, style=muted),
            Text("\nGlyphs", style="bold"),
            grid(glyphs),
            grid([(Text(mark, style="bold"), meaning) for mark, meaning in MARKS]),
            Text("\nWhat the screens show", style="bold"),
            grid([(Text(term, style="bold"), meaning) for term, meaning in DEFINITIONS]),
            Text("\nEscape closes this.", style=muted),
        )

    def _keys(self) -> list[tuple[Text, Text]]:
        """Every key of the screen under help: ``key  Name: what it does`` (dim when not now)."""
        if self.under is None:
            return []
        muted = palette(self.app).get("muted-text", "")
        return [
            (
                Text(keys, style="bold" if enabled else f"bold {muted}"),
                # Text, not markup: a reason may name the user's own code.
                Text(
                    f"{name}: {what}"
                    + ("" if enabled else f" (not now: {why})" if why else " (not now)")
                ),
            )
            for keys, name, what, enabled, why in key_rows(self.under)
        ]
