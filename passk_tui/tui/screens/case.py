"""The case screen: every attempt of one case, live while the run goes on, and beside the list
the attempt under its cursor (its verdict, answer, and diff against a passing one).

A narrow screen keeps the list to what identifies an attempt (number, outcome,
duration): the Turn status and ids are in the pane's verdict line. Opened from an
answer or error group, the list holds only that group's attempts.
"""

from __future__ import annotations

import json
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Header, Static

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.agent_definition import outside_verdict
from passk_tui.core.reading.vocabulary import CELL_OF_OUTCOME, Cell
from passk_tui.core.render.cost_text import case_cost_text, conversation_text
from passk_tui.core.render.judge_text import case_judge_text
from passk_tui.core.text.amounts import counted
from passk_tui.core.text.decimals import fixed
from passk_tui.core.text.figure_text import interval_text, level_text, two_decimals
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.check_text import check_as_written
from passk_tui.tui.screens.view_actions import CaseViews
from passk_tui.tui.view import EvaluationView
from passk_tui.tui.widgets.attempt_detail import AttemptDetail, verdict_text
from passk_tui.tui.widgets.conversation.transcript_view import TranscriptView
from passk_tui.tui.widgets.glyphs import NAMES, SYMBOLS, THEME_COLOUR, follow_theme, palette
from passk_tui.tui.widgets.key_bar import KeyBar
from passk_tui.tui.widgets.line_text import left_aligned, parts_line, right_aligned
from passk_tui.tui.widgets.row_table import AttemptsTable

COLUMNS = ("attempt", "outcome", "Turn status", "duration")
#: Below this width the list drops the Turn status (the pane's verdict says it).
STATUS_WIDTH = 100
#: Shown only when some attempt of the case has one (local agents have none), at this width.
ID_COLUMNS = ("run id", "turn id")
IDS_WIDTH = 140
#: Shown only when some attempt of the case was retried (429, 5xx, a lost connection).
RETRIES_COLUMN = "retries"
NUMERIC_COLUMNS = ("attempt", "duration", RETRIES_COLUMN)
#: Characters of the input shown before `i` expands it.
INPUT_SHORT = 160


class CaseScreen(CaseViews):
    """One case: its figures, input and check, a row per attempt, the chosen attempt's answer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", show=False, tooltip="The screen before"),
        Binding("a", "focus_answer", "Answer", show=False, tooltip="Move to the answer (a)"),
        Binding("t", "focus_attempts", "Attempts", tooltip="Move to the attempts list"),
        Binding("i", "toggle_input", "Whole input", tooltip="Show the whole input (again: less)"),
    ]

    def __init__(
        self,
        view: EvaluationView,
        case_index: int,
        only: tuple[int, ...] | None = None,
        about: str = "",
    ) -> None:
        """``only``: just these attempts (an answer or error group's), ``about`` says which."""
        super().__init__()
        self.view = view
        self.case_index = case_index
        self.only = only
        self.about = about
        #: The attempt number of each row of the list.
        self.shown_attempts: list[int] = []
        self._seen: tuple[bytes, str, int] | None = None
        self._shown_attempt: int | None = None
        self._columns: tuple[str, ...] = ()
        self._input_expanded = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="case-figures")
        yield Static(self._case_text(), id="case-spec")
        yield Static(self._only_text(), id="case-only")
        with Horizontal(id="case-split"):
            yield AttemptsTable(id="case-attempts")
            yield AttemptDetail(id="attempt-detail")
        yield KeyBar()

    def show_case(self, case_index: int) -> None:
        """Show another case of the same evaluation (the screen is reused: no new widgets)."""
        self.case_index = case_index
        self.only, self.about = None, ""
        self.query_one("#case-only", Static).update(self._only_text())
        self._seen = None
        self._shown_attempt = None
        self.sub_title = f"case {self.view.progress.case_names[case_index]}"
        self.query_one("#case-spec", Static).update(self._case_text())
        table = self.query_one(DataTable)
        table.clear()  # the columns stay unless this case needs others (ids or none)
        self.refresh_from_progress()
        table.move_cursor(row=0)
        table.focus()

    def on_mount(self) -> None:
        self.sub_title = f"case {self.view.progress.case_names[self.case_index]}"
        table = self.query_one(DataTable)
        self.query_one("#attempt-answer").border_title = "answer"
        self.query_one("#case-only").display = self.only is not None
        self.refresh_from_progress()
        table.focus()
        self.set_interval(0.25, self.refresh_from_progress)
        follow_theme(self, self._restyle)

    def _restyle(self) -> None:
        """A new theme: the rows and the attempt again, in its colours."""
        self._seen = None
        self.refresh_from_progress()

    def _case_text(self) -> Text:
        text = Text()
        cases = self.view.cases
        if not cases:
            return text
        case = cases[self.case_index]
        # A conversation case shows what it plays instead: its turns, or its simulated user.
        label, given = next(iter(case.conversation().items()), ("input", case.input))
        shown_input = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
        if len(shown_input) > INPUT_SHORT and not self._input_expanded:
            shown_input = shown_input[: INPUT_SHORT - 1] + "… (i: all of it)"
        text.append(f"{label}  ", style="bold")
        text.append(terminal_safe(shown_input))
        text.append("\ncheck  ", style="bold")
        if case.spec:
            text.append(terminal_safe(check_as_written(case.spec, self.view.settings.cases_path)))
        elif decided := outside_verdict(self.view.definition):
            text.append(f"none: {decided}")
        else:
            text.append("none: completion only (a completed Turn passes)")
        return text

    def _only_text(self) -> Text:
        if self.only is None:
            return Text()
        muted = palette(self.app).get("muted-text", "") if self.is_attached else ""
        return Text(
            f"{counted(len(self.only), 'attempt')} {self.about} (Escape: back)", style=muted
        )

    def attempt_under_cursor(self) -> int | None:
        """The attempt number of the list's cursor row; None with no rows."""
        row = self.query_one(DataTable).cursor_row
        return self.shown_attempts[row] if 0 <= row < len(self.shown_attempts) else None

    def on_resize(self) -> None:
        """The list's columns depend on the width: lay it out again."""
        self._seen = None
        self.refresh_from_progress()

    def action_toggle_input(self) -> None:
        self._input_expanded = not self._input_expanded
        spec = self.query_one("#case-spec", Static)
        spec.set_class(self._input_expanded, "-expanded")
        spec.update(self._case_text())

    def _records(self) -> dict[int, AttemptRecord]:
        return {r.attempt: r for r in self.view.progress.records[self.case_index]}

    def refresh_from_progress(self) -> None:
        """Rebuild the rows when this case's cells changed (live) or on first show."""
        progress = self.view.progress
        cells = bytes(progress.cells[self.case_index])
        width = self.app.size.width
        key = (cells, self.view.status, width)
        if key == self._seen:
            return
        self._seen = key
        self._update_figures()
        table = self.query_one(DataTable)
        records = self._records()
        colours = palette(self.app)
        cursor = table.cursor_row
        with_ids = any(r.run_id or r.turn_id for r in records.values())
        with_retries = any(r.retries for r in records.values())
        with_ids = with_ids and width >= IDS_WIDTH
        listed = (
            COLUMNS if width >= STATUS_WIDTH else tuple(c for c in COLUMNS if c != "Turn status")
        )
        columns = listed + (RETRIES_COLUMN,) * with_retries + ID_COLUMNS * with_ids
        if columns != self._columns:
            table.clear(columns=True)
            for column in columns:
                numeric = column in NUMERIC_COLUMNS
                heading = right_aligned(column, len(column)) if numeric else left_aligned(column)
                table.add_column(heading, key=column)
            self._columns = columns
        table.clear()
        self.shown_attempts = [
            a for a in range(1, len(cells) + 1) if self.only is None or a in self.only
        ]
        for attempt in self.shown_attempts:
            state = cells[attempt - 1]
            record = records.get(attempt)
            cell = CELL_OF_OUTCOME[record.outcome] if record else Cell(state)
            outcome = left_aligned(
                f"{SYMBOLS[cell]} {NAMES[cell]}", colours.get(THEME_COLOUR[cell], "")
            )
            number = right_aligned(str(attempt), len("attempt"))
            if record is None:
                row: tuple[Text | str, ...] = (number, outcome, "", "")
            else:
                duration = f"{fixed(record.duration)} s" if self.view.show_timing else "-"
                status = left_aligned(terminal_safe(record.status))
                row = (number, outcome, status, right_aligned(duration, len("duration")))
            if "Turn status" not in columns:
                row = row[:2] + row[3:]
            if with_retries:
                retries = "" if record is None else str(record.retries)
                row += (right_aligned(retries, len(RETRIES_COLUMN)),)
            if with_ids and record is not None:
                row += tuple(
                    left_aligned(terminal_safe(i or "-")) for i in (record.run_id, record.turn_id)
                )
            elif with_ids:
                row += ("", "")
            table.add_row(*row, key=str(attempt))
        if table.row_count:
            table.move_cursor(row=min(max(cursor, 0), table.row_count - 1))
        self._show_row(table.cursor_row, force=True)

    def _update_figures(self) -> None:
        f = self.view.progress.figures(self.case_index)
        colours = palette(self.app)
        k = self.view.progress.k
        muted = colours.get("muted-text", "")
        parts = [
            (terminal_safe(f.name), "bold"),
            (f" · ✓ {f.passed}/{f.n} passed", colours.get("outcome-passed", "")),
            (" · ", ""),
            (f"✗ {f.wrong} wrong", colours.get("outcome-wrong", "") if f.wrong else ""),
            (" · ", ""),
            (f"! {f.errored} errored", colours.get("outcome-errored", "") if f.errored else ""),
        ]
        if f.n:
            parts.append(
                (
                    f" · pass@1 {two_decimals(f.pass_at_1)} · pass@{k} {two_decimals(f.pass_at_k)}"
                    f" · pass^{k} {two_decimals(f.pass_hat_k)}",
                    "",
                )
            )
        if self.view.live:
            parts.append((" · (live)", muted))
        elif self.view.snapshot_of_running:
            parts.append((" · (a snapshot: still running elsewhere)", muted))
        reading = self.view.reading()
        intervals = reading.cases[self.case_index].intervals
        parts.append((f"\n{level_text(reading.level)} {reading.method.label} intervals: ", muted))
        for number, (label, interval) in enumerate(
            (
                ("pass@1", intervals.pass_at_1),
                (f"pass@{k}", intervals.pass_at_k),
                (f"pass^{k}", intervals.pass_hat_k),
            )
        ):
            shown = interval_text(interval) if interval is not None else "-"
            parts.append((f"{' · ' if number else ''}{label} {shown}", ""))
        costs = self.view.costs()[self.case_index]
        priced = self.view.settings.price is not None
        parts.append((f"\n{case_cost_text(costs, priced, self.view.show_timing)}", muted))
        shape = self.view.conversations()[self.case_index]
        if shape.conversational:
            parts.append((f"\nper attempt: {conversation_text(shape)}", muted))
        judge = case_judge_text(self.view.progress.records[self.case_index])
        if judge is not None:
            parts.append((f" · {judge}", muted))
        text = parts_line(*parts)
        self.query_one("#case-figures", Static).update(text)

    @on(DataTable.RowHighlighted, "#case-attempts")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_row(event.cursor_row)

    @on(DataTable.RowSelected, "#case-attempts")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_focus_answer()

    def _show_row(self, row: int, force: bool = False) -> None:
        """The pane follows the list: the attempt on ``row`` (an attempt number when filtered)."""
        if not 0 <= row < len(self.shown_attempts):
            return
        attempt = self.shown_attempts[row]
        if attempt == self._shown_attempt and not force:
            return
        self._shown_attempt = attempt
        records = self._records()
        record = records.get(attempt)
        pane = self.query_one(AttemptDetail)
        if record is None:
            pane.show_pending(attempt)
            return
        spec = self.view.cases[self.case_index].spec if self.view.cases else None
        reference = next(
            (records[a] for a in sorted(records) if records[a].outcome is Outcome.PASSED), None
        )
        decided = outside_verdict(self.view.definition)
        verdict = verdict_text(record, palette(self.app), spec is not None, decided)
        pane.show(record, verdict, reference)

    def action_focus_answer(self) -> None:
        conversation = self.query_one(TranscriptView)
        (conversation if conversation.display else self.query_one("#attempt-answer")).focus()

    def action_focus_attempts(self) -> None:
        self.query_one(DataTable).focus()
