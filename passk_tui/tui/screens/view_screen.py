"""What every new view shares: header and footer, Escape back, and its colours from the theme."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import Screen

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.tui.widgets.glyphs import follow_theme

#: The views' stylesheet, for every screen that shows an evaluation and the dialogs over them.
VIEWS_CSS = str(Path(__file__).with_name("views.tcss"))

if TYPE_CHECKING:
    from passk_tui.tui.view import EvaluationView

#: How an outcome is written in the views: a symbol readable without colour, then the word.
OUTCOME_LABEL = {Outcome.PASSED: "✓ passed", Outcome.WRONG: "✗ wrong", Outcome.ERRORED: "! errored"}


class ViewScreen(Screen[None]):
    """A read-only view over an evaluation; ``role(name)`` gives the theme's style for Rich text."""

    # Absolute: Textual reads a relative CSS_PATH beside the subclass, and the Results and
    # Compare screens live in folders of their own.
    CSS_PATH = VIEWS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", tooltip="The screen before")
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "view--passed",
        "view--wrong",
        "view--errored",
        "view--muted",
        "view--gate",
        "view--hat-k",
    }

    def __init__(self, view: EvaluationView) -> None:
        super().__init__()
        self.view = view
        self._seen_version: int | None = None

    def on_mount(self) -> None:
        self.sub_title = self.view.title()
        # After the first layout, when the screen's styles (and so ``role``) are resolved.
        self.call_after_refresh(self._refresh_if_moved)
        follow_theme(self, self.refresh_view)
        if self.view.running:
            self.set_interval(1.0, self._refresh_if_moved)

    def _refresh_if_moved(self) -> None:
        """Redraw when the evaluation moved (live) or on first show."""
        version = self.view.progress.version
        if version != self._seen_version:
            self._seen_version = version
            self.refresh_view()

    def refresh_view(self) -> None:
        """Fill the view from ``self.view``: each screen draws itself here."""

    def all_records(self) -> list[AttemptRecord]:
        return [r for rows in self.view.progress.records for r in rows]

    def live_note(self) -> str:
        return "   (live)" if self.view.running else ""

    def role(self, name: str) -> Style:
        """The style of ``view--name`` as the theme colours it (see views.tcss).

        Resolved in full, so that ``auto`` colours (``$text-muted``) become real ones,
        then without the background, which would hide a table's cursor row.
        """
        full = self.get_component_rich_style(f"view--{name}")
        return Style(color=full.color, bold=full.bold)

    def outcome_text(self, outcome: Outcome) -> Text:
        return Text(OUTCOME_LABEL[outcome], style=self.role(str(outcome)))

    def diff_heading(self, old: str, old_outcome: Outcome, new: str, new_outcome: Outcome) -> Text:
        """``- attempt 2 ✗ wrong   + attempt 1 ✓ passed``: which answers a diff compares."""
        heading = Text()
        heading.append(f"- {old} ", style=self.role(str(old_outcome)))
        heading.append_text(self.outcome_text(old_outcome))
        heading.append("   ")
        heading.append(f"+ {new} ", style=self.role(str(new_outcome)))
        heading.append_text(self.outcome_text(new_outcome))
        return heading

    def counts_text(self, passed: int, wrong: int, errored: int) -> Text:
        """``3 passed  1 wrong``: the non-zero counts, each in its outcome's colour."""
        text = Text()
        for count, name in ((passed, "passed"), (wrong, "wrong"), (errored, "errored")):
            if count:
                text.append(f"{'  ' if text else ''}{count} {name}", style=self.role(name))
        return text
