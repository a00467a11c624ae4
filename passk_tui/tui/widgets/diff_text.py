"""Two answers' diff as Rich text: each side in its outcome's colour, a failing side marked.

The passing answer is the reference, in its own colour; the failing one is what is
marked. Shared by the diff view, the Compare case view and the Case screen's pane.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.render.answer_diff import DiffLine, answer_diff
from passk_tui.core.render.answers import shown_answer
from passk_tui.core.text.terminal_text import terminal_safe_lines

#: The mark before each line of the diff, by its kind.
LINE_MARK = {"same": "  ", "removed": "- ", "added": "+ "}


def shown_diff(old: AttemptRecord, new: AttemptRecord) -> list[DiffLine]:
    """Two attempts' answers diffed as they are shown (escapes visible), so that the changed
    characters' positions are positions in the text on screen."""
    return answer_diff(
        terminal_safe_lines(shown_answer(old.output)), terminal_safe_lines(shown_answer(new.output))
    )


def side_style(outcome: Outcome, colours: dict[str, str]) -> Style:
    """A diff side's style by its attempt's outcome, from the app's palette.

    A passing answer is the reference: its own colour, its changed characters bold.
    A failing one (wrong, or errored with an answer) is what is marked: its changed
    characters reversed in its outcome's colour, readable in either theme (reversed
    text has the same contrast as the text)."""
    colour = colours.get(f"outcome-{outcome}") or None
    if outcome is Outcome.PASSED:
        return Style(color=colour, bold=True)
    return Style(color=colour, bold=True, reverse=True)


def diff_text(lines: list[DiffLine], old: Outcome, new: Outcome, colours: dict[str, str]) -> Text:
    """The diff's lines marked - and +, each side in its outcome's colour, the changed
    characters of a failing side marked (``side_style``)."""
    sides = {"removed": side_style(old, colours), "added": side_style(new, colours)}
    muted = Style(color=colours.get("muted-text") or None)
    text = Text()
    for number, line in enumerate(lines):
        if number:
            text.append("\n")
        if line.kind == "same":
            text.append(LINE_MARK["same"] + line.text, style=muted)
            continue
        style = sides[line.kind]
        start = len(text)
        text.append(LINE_MARK[line.kind] + line.text)
        text.stylize(Style(color=style.color), start, len(text))
        for a, b in line.changed:
            text.stylize(style, start + 2 + a, start + 2 + b)
    return text
