"""The history screen: earlier evaluations from the store; open one in Results, resume one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.agent_definition import not_runnable
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.app.messages import (
    CompareRequested,
    MatrixRequested,
    ResumeRequested,
    StoredEvaluationOpened,
)
from passk_tui.tui.screens.results.screen import RESUMABLE
from passk_tui.tui.widgets.glyphs import follow_theme, palette
from passk_tui.tui.widgets.key_bar import KeyBar
from passk_tui.tui.widgets.line_text import left_aligned, right_aligned
from passk_tui.tui.widgets.row_table import EvaluationsTable
from passk_tui.tui.widgets.search_bar import SearchBar, matching

if TYPE_CHECKING:
    from passk_tui.store import EvaluationSummary

#: The shortest an id is cut to on screen (any unique prefix opens or resumes it).
ID_PREFIX_MIN = 10
#: The columns in the order shown (status early: it matters more than the id's tail).
SHOWN = ("id", "status", "when", "agent", "version", "cases", "attempts", "under gate", "decided")
NUMERIC = ("version", "cases", "attempts", "under gate", "decided")
#: Headers shortened so that nine columns fit 80 (``under``: cases under the gate).
LABELS = {"version": "v", "under gate": "under"}
#: Before a marked evaluation's id (space marks two; c compares them).
MARK = "●"
#: The most evaluations marked at once: a comparison is of two.
MARKS_MAX = 2


def short_ids(ids: Sequence[str], minimum: int = ID_PREFIX_MIN) -> list[str]:
    """Each id cut to the shortest prefix (at least ``minimum``) that no other id shares."""
    shown = []
    for one in ids:
        length = min(len(one), minimum)
        while length < len(one) and any(o != one and o.startswith(one[:length]) for o in ids):
            length += 1
        shown.append(one if length >= len(one) else one[:length] + "…")
    return shown


class HistoryScreen(Screen[None]):
    """Every stored evaluation, newest first (as `passk-tui history` prints them)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", show=False, tooltip="The screen before"),
        Binding(
            "u", "resume", "Resume", tooltip="Run the attempts the chosen evaluation is missing"
        ),
        Binding(
            "slash",
            "search",
            "Search",
            tooltip="Show only evaluations whose id, agent or status contains…",
        ),
        Binding("space", "mark", "Mark", tooltip="Mark an evaluation to compare (two at most)"),
        Binding("c", "compare", "Compare", tooltip="Compare the two marked (the older is A)"),
        Binding("f5", "reload", "Reload", tooltip="Read the store again"),
        Binding(
            "t",
            "trends",
            "Trends",
            tooltip="The chosen evaluation's agent over time: flaky cases, pass@1 per case",
        ),
        Binding("m", "matrix", "Matrix", tooltip="The matrix the chosen evaluation ran in"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._summaries: list[EvaluationSummary] = []
        #: The rows shown (indices into the summaries), after a search.
        self._shown: list[int] = []
        #: The ids marked for a comparison, in the order marked.
        self.marked: list[str] = []
        self._query = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="history-note")
        yield SearchBar()
        yield EvaluationsTable(id="history-table")
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = "history"
        self.action_reload()
        self.query_one(DataTable).focus()
        follow_theme(self, self._show)

    def action_reload(self) -> None:
        from passk_tui.store import Store

        note = self.query_one("#history-note", Static)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        try:
            with Store.open() as store:
                self._summaries = store.list_evaluations()
        except (InputError, RunError) as exc:
            note.update(
                Text(terminal_safe(str(exc)), style=palette(self.app).get("outcome-errored", ""))
            )
            return
        self._show()

    def _show(self, query: str | None = None) -> None:
        from passk_tui.store.history import history_rows

        if query is None:
            query = self._query
        self._query = query
        cursor = self.query_one(DataTable).cursor_row
        note = self.query_one("#history-note", Static)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        rows = [
            tuple(map(terminal_safe, (*row, "decided" if s is None else _decided(s))))
            for row, s in zip(history_rows(self._summaries), [None, *self._summaries], strict=True)
        ]
        columns = [rows[0].index(name) for name in SHOWN]
        widths = {
            name: max(len(row[c]) for row in rows[1:]) if len(rows) > 1 else 0
            for name, c in zip(SHOWN, columns, strict=True)
        }
        ids = [
            (MARK if s.id in self.marked else " ") + short
            for s, short in zip(
                self._summaries,
                short_ids([terminal_safe(s.id) for s in self._summaries]),
                strict=True,
            )
        ]
        # This year's dates without the year: the columns fit 80 with the status kept.
        whens = [datetime.fromtimestamp(s.created).strftime("%m-%d %H:%M") for s in self._summaries]
        widths["when"] = max((len(w) for w in whens), default=4)
        widths["id"] = max((len(i) for i in ids), default=2)
        for name in SHOWN:
            label = LABELS.get(name, name)
            width = widths[name] = max(widths[name], len(label))
            heading = right_aligned(label, width) if name in NUMERIC else left_aligned(label)
            table.add_column(heading, key=name, width=width)
        colours = palette(self.app)
        status_colour = {
            "done": colours.get("outcome-passed", ""),
            "interrupted": colours.get("outcome-wrong", ""),
            "cancelled": colours.get("outcome-wrong", ""),
            "failed": colours.get("outcome-errored", ""),
        }
        searchable = [" ".join(row) for row in rows[1:]]
        self._shown = matching(searchable, query)
        for index in self._shown:
            cells = dict(zip(SHOWN, (rows[index + 1][c] for c in columns), strict=True))
            cells["id"] = ids[index]
            cells["when"] = whens[index]
            texts = []
            for name in SHOWN:
                style = status_colour.get(cells[name], "") if name == "status" else ""
                if name in NUMERIC:
                    texts.append(right_aligned(cells[name], widths[name], style))
                else:
                    texts.append(left_aligned(cells[name], style))
            table.add_row(*texts)
        if table.row_count:
            table.move_cursor(row=min(max(cursor, 0), table.row_count - 1))
        muted = colours.get("muted-text", "")
        if not self._summaries:
            note.update(Text("No evaluations in the store yet.", style=muted))
        elif query:
            note.update(
                Text(
                    f"SEARCH: {len(self._shown)} of {len(self._summaries)} evaluations contain {query!r} (Escape: all)",
                    style=muted,
                )
            )
        else:
            note.update(
                Text(
                    "Enter opens its results; u resumes; space marks two, c compares; t trends."
                    + (f"  {len(self.marked)} marked." if self.marked else ""),
                    style=muted,
                )
            )

    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    @on(SearchBar.Searched)
    def _searched(self, event: SearchBar.Searched) -> None:
        self._show(event.query)

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self.query_one(DataTable).focus()

    def _chosen(self) -> EvaluationSummary | None:
        row = self.query_one(DataTable).cursor_row
        return self._summaries[self._shown[row]] if 0 <= row < len(self._shown) else None

    @on(DataTable.RowSelected, "#history-table")
    def _selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        """Show the chosen evaluation's results (live when it is the one running here)."""
        chosen = self._chosen()
        if chosen is not None:
            self.post_message(StoredEvaluationOpened(chosen.id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Resume, shown dimmed, where only Python can run the chosen evaluation's agent."""
        return None if self.unavailable(action) else True

    def unavailable(self, action: str) -> str | None:
        """Why Resume cannot run the chosen evaluation here: its agent is a Python callable, or it was imported."""
        chosen = self._chosen() if action == "resume" and self.is_mounted else None
        why = None if chosen is None else not_runnable(chosen.id, chosen.definition)
        return None if why is None else terminal_safe(why)

    @on(DataTable.RowHighlighted, "#history-table")
    def _highlighted(self) -> None:
        self.refresh_bindings()  # Resume may be another evaluation's to run, or not

    def action_resume(self) -> None:
        chosen = self._chosen()
        if chosen is None:
            return
        if chosen.status not in RESUMABLE:
            self.notify(f"{chosen.id} is {chosen.status}: nothing to resume.", severity="warning")
            return
        self.post_message(ResumeRequested(chosen.id))

    def action_matrix(self) -> None:
        """The Matrix screen of the chosen evaluation's group (History's agent says ``group``)."""
        chosen = self._chosen()
        if chosen is None:
            return
        if chosen.group is None:
            self.notify(f"{chosen.id} ran alone, not in a matrix.", severity="warning")
            return
        self.post_message(MatrixRequested(chosen.id))

    def action_mark(self) -> None:
        """Mark (or unmark) the chosen evaluation; a third mark lets go of the first."""
        chosen = self._chosen()
        if chosen is None:
            return
        if chosen.id in self.marked:
            self.marked.remove(chosen.id)
        else:
            self.marked = [*self.marked, chosen.id][-MARKS_MAX:]
        self._show()

    def action_trends(self) -> None:
        """The chosen evaluation's agent over its stored evaluations (Trends)."""
        from passk_tui.tui.screens.trends.screen import TrendsScreen

        chosen = self._chosen()
        if chosen is not None:
            self.app.push_screen(TrendsScreen(chosen.agent))

    def action_compare(self) -> None:
        """Compare the two marked evaluations, the older as the baseline (A)."""
        if len(self.marked) != MARKS_MAX:
            self.notify("Mark two evaluations with space first, then c compares them.")
            return
        created = {s.id: s.created for s in self._summaries}
        older, newer = sorted(self.marked, key=lambda one: created.get(one, 0.0))
        self.post_message(CompareRequested(older, newer))


def _decided(summary: EvaluationSummary) -> str:
    """Cases the confident gate decides (pass or fail), of all; ``-`` without a gate."""
    return "-" if summary.decided is None else f"{summary.decided}/{summary.cases}"
