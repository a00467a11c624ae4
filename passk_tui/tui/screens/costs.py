"""Per case, what its attempts took: wall seconds and tokens (median and 95th percentile), money."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Header, Static

from passk_tui.core.inputs.price import money_text
from passk_tui.core.reading.vocabulary import Spread
from passk_tui.core.render.cost_text import cost_summary
from passk_tui.core.text.decimals import fixed
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.screens.view_screen import ViewScreen
from passk_tui.tui.widgets.key_bar import KeyBar

COLUMNS = ("case", "attempts", "p50 s", "p95 s", "in p50", "in p95", "out p50", "out p95", "tokens")
#: After the counts when the version has prices.
MONEY_COLUMNS = ("cost", "per pass")


@runtime_checkable
class TimingShown(Protocol):
    """An app that says whether clocks show (passk-tui's: False in tests and snapshots)."""

    show_timing: bool


def spread_cells(spread: Spread, digits: int) -> tuple[Text, Text]:
    """A spread's p50 and p95, right-aligned; ``-`` when nothing was measured."""
    return _number(spread.p50, digits), _number(spread.p95, digits)


def _number(value: float | None, digits: int) -> Text:
    return Text("-" if value is None else fixed(value, digits), justify="right")


class CostsScreen(ViewScreen):
    """Durations of every finished attempt; tokens of the attempts whose Turn reported usage."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="costs-summary", classes="view-line")
        yield DataTable(id="costs-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="costs-note", classes="view-note")
        yield KeyBar()

    def on_mount(self) -> None:
        priced = self.view.settings.price is not None
        # Priced, the money goes first after the counts: at 80 columns the rest may scroll.
        money = MONEY_COLUMNS if priced else ()
        self.query_one(DataTable).add_columns(*COLUMNS[:2], *money, *COLUMNS[2:])
        super().on_mount()
        self.query_one(DataTable).focus()

    def refresh_view(self) -> None:
        # Another app (a test's bare one) shows them.
        show_timing = self.app.show_timing if isinstance(self.app, TimingShown) else True
        rows = self.view.costs()
        priced = self.view.settings.price is not None
        table = self.query_one(DataTable)
        table.clear()
        for row in rows:
            durations = spread_cells(row.duration, 2) if show_timing else (Text("–"), Text("–"))
            table.add_row(
                Text(terminal_safe(row.name)),  # a cell's str would be read as markup
                Text(str(row.attempts), justify="right"),
                *(
                    (
                        Text(money_text(row.cost), justify="right"),
                        Text(money_text(row.cost_per_pass), justify="right"),
                    )
                    if priced
                    else ()
                ),
                *durations,
                *spread_cells(row.input_tokens, 0),
                *spread_cells(row.output_tokens, 0),
                Text("-" if row.total_tokens is None else str(row.total_tokens), justify="right"),
            )
        summary = Text("Wall seconds per attempt and tokens per attempt, by case")
        summary.append(self.live_note(), style="dim")
        self.query_one("#costs-summary", Static).update(summary)
        reported = any(r.reported for r in rows)
        note = (
            "in/out: input and output tokens of the attempts that reported usage."
            if reported
            else "No attempt reported token usage (a local command agent has none to report)."
        )
        summary_line = cost_summary(rows, self.view.settings)
        if summary_line:
            note += f"\n{summary_line}"
        self.query_one("#costs-note", Static).update(Text(note))
