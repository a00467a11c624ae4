"""Every case's interval on one axis (a forest plot): which cases are sure, which are not."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Header, Static

from passk_tui.core.reading.vocabulary import FOREST_FIGURES, ForestFigure, ForestRow
from passk_tui.core.text.figure_text import gate_text, level_text
from passk_tui.tui.screens.view_screen import ViewScreen
from passk_tui.tui.widgets.forest import ForestPlot, scale_line
from passk_tui.tui.widgets.key_bar import KeyBar


def lowest_first(rows: list[ForestRow]) -> list[ForestRow]:
    """Undefined figures first, then by the interval's low end: the least sure cases on top."""
    return sorted(rows, key=lambda r: (r.interval is not None, r.interval.low if r.interval else 0))


class ForestScreen(ViewScreen):
    """One row per case: the figure's interval as a bar, the --require gate as ┊."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "next_figure", "Next figure", tooltip="pass@k, pass@1, pass^k in turn"),
        Binding("s", "toggle_sort", "Sort", tooltip="File order, or lowest interval first"),
    ]

    figure: ForestFigure = "pass@k"
    sorted_low: bool = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="forest-title", classes="view-line")
        yield Static(id="forest-scale", classes="view-note")
        yield ForestPlot(id="forest-plot")
        yield Static(id="forest-legend", classes="view-note")
        yield KeyBar()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(ForestPlot).focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self._scale)

    def refresh_view(self) -> None:
        progress = self.view.progress
        require = self.view.settings.require
        level = self.view.read().level
        method = self.view.interval_choice().method
        rows = self.view.read().forest(self.figure)
        if self.sorted_low:
            rows = lowest_first(rows)
        figure = self.figure.replace("k", str(progress.k))
        title = Text()
        title.append(figure, style="bold")
        title.append(f" per case with its {level_text(level)} {method.label} interval")
        if require is not None:
            title.append("   ┊ ", style=self.role("gate"))
            title.append(f"gate {gate_text(require)}", style=self.role("gate"))
        title.append("   sorted: lowest first" if self.sorted_low else "", style="dim")
        title.append(self.live_note(), style="dim")
        self.query_one("#forest-title", Static).update(title)
        self.query_one(ForestPlot).show(rows, require if self.figure == "pass@k" else None)
        self.query_one("#forest-legend", Static).update(self._legend(require))
        self._scale()

    def _legend(self, require: Fraction | None) -> Text:
        """What the colours say: the gate's verdict on each interval (pass@k only)."""
        if require is None:
            return Text("No gate: with --require each case is coloured by its verdict.")
        if self.figure != "pass@k":
            return Text("The gate reads pass@k: press k to colour the cases by its verdict.")
        legend = Text()
        for role, words in (
            ("passed", "wholly at or above the gate"),
            ("wrong", "undecided"),
            ("errored", "wholly below"),
        ):
            legend.append(f"{'   ' if legend else ''}━ {words}", style=self.role(role))
        return legend

    def _scale(self) -> None:
        names, bar = self.query_one(ForestPlot).layout_widths()
        self.query_one("#forest-scale", Static).update(scale_line(names, bar))

    def action_next_figure(self) -> None:
        self.figure = FOREST_FIGURES[(FOREST_FIGURES.index(self.figure) + 1) % len(FOREST_FIGURES)]
        self.refresh_view()

    def action_toggle_sort(self) -> None:
        self.sorted_low = not self.sorted_low
        self.refresh_view()
