"""One case's pass@k against k for k = 1..n, pass^k beside it, each with its interval."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Header, Static

from passk_tui.core.reading.vocabulary import Curve
from passk_tui.core.text.figure_text import interval_text, level_text, two_decimals
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.screens.view_screen import ViewScreen
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.curve import AT_K_MARK, HAT_K_MARK, CurvePlot
from passk_tui.tui.widgets.key_bar import KeyBar


class CurveScreen(ViewScreen):
    """The curve drawn, then every k's figures and intervals in a table."""

    def __init__(self, view: EvaluationView, case_index: int) -> None:
        super().__init__(view)
        self.case_index = case_index

    def _curve(self) -> Curve:
        """At the evaluation's level, by its method (anytime-valid once n was chosen by
        looking), as the Results and Case screens read it."""
        return self.view.read().curve(self.case_index)

    def _level(self) -> float:
        return self.view.read().level

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="curve-title", classes="view-line")
        yield CurvePlot(self._curve(), id="curve-plot")
        yield Static(id="curve-legend", classes="view-note")
        yield DataTable(id="curve-table", cursor_type="row")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        level = level_text(self._level())
        table.add_columns("k", "pass@k", f"{level} CI", "pass^k", "CI")
        super().on_mount()
        table.focus()

    def refresh_view(self) -> None:
        curve = self._curve()
        f = self.view.progress.figures(self.case_index)
        title = Text()
        title.append(terminal_safe(f.name), style="bold")
        title.append(f"   {f.passed}/{f.n} passed   pass@k and pass^k for k = 1..{f.n}")
        title.append(self.live_note(), style="dim")
        self.query_one("#curve-title", Static).update(title)
        self.query_one(CurvePlot).show(curve)
        legend = Text()
        legend.append(f"{AT_K_MARK} pass@k", style=self.role("passed"))
        legend.append("   ")
        legend.append(f"{HAT_K_MARK} pass^k", style=self.role("hat-k"))
        method = self.view.interval_choice().method.label
        legend.append(f"   bars: {level_text(curve.confidence)} interval, {method}")
        self.query_one("#curve-legend", Static).update(legend)
        table = self.query_one(DataTable)
        table.clear()
        for p in curve.points:
            table.add_row(
                Text(str(p.k), justify="right"),
                Text(two_decimals(p.pass_at_k), justify="right"),
                interval_text(p.pass_at_k_interval),
                Text(two_decimals(p.pass_hat_k), justify="right"),
                interval_text(p.pass_hat_k_interval),
            )
