"""The `?` screen: what every figure, interval, outcome and glyph on the other screens means."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from passk_tui.core.run.progress import Cell
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS, THEME_COLOUR, follow_theme, palette

#: What the figures mean, in the words of PRODUCT.md (n attempts of a case, c of them passed).
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

KEYS = (
    ("Enter", "open the case under the cursor (its attempts, answers, errors)"),
    ("/", "search case names (Run, Results); evaluations (History)"),
    ("n p e …", "sort Results by a column; again to reverse (▲ lowest first, ▼ highest)"),
    ("f", "only the cases with wrong or errored attempts"),
    ("m", "Results: more attempts per case, for the flaky or undecided (says the Runs first)"),
    ("space c", "History: mark two evaluations, compare them (the older is A; s swaps)"),
    ("Home End", "first and last row; ←/→ move a long grid's attempts"),
    ("Ctrl+P", "every command of this screen, and the theme"),
)


class HelpScreen(ModalScreen[None]):
    """Definitions, glyphs and keys; Escape or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "app.pop_screen", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(self.body(), id="help-text")

    def on_mount(self) -> None:
        follow_theme(self, lambda: self.query_one("#help-text", Static).update(self.body()))

    def body(self) -> Group:
        """Definitions, glyphs and keys, coloured as the other screens colour them."""
        colours = palette(self.app)

        def grid(rows: list[tuple[Text, str]]) -> Table:
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
        return Group(
            Text("What the screens show", style="bold"),
            grid([(Text(term, style="bold"), meaning) for term, meaning in DEFINITIONS]),
            Text("\nAttempt glyphs", style="bold"),
            grid(glyphs),
            Text("\nKeys", style="bold"),
            grid([(Text(key, style="bold"), meaning) for key, meaning in KEYS]),
            Text("\nEscape closes this.", style=colours.get("muted-text", "")),
        )
