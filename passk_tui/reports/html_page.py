"""The frame and shared pieces of passk-tui's HTML reports (an evaluation's, a comparison's).

A report is one self-contained file: inline CSS, no script, and a Content-Security-Policy
that forbids every fetch, so a value that somehow slipped through escaping still could not
load anything. Every outside value goes through ``esc`` or ``cut_text``, which escape it for
HTML and show its control and bidi characters as visible escapes (``\\u202e``), as the .md does.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib.resources import files
from itertools import groupby
from typing import Any

from passk_tui.core.reading.vocabulary import Cell, Interval
from passk_tui.core.render.glyphs import NAMES, SYMBOLS
from passk_tui.core.run.cases import Case
from passk_tui.core.text.terminal_text import terminal_safe_lines
from passk_tui.core.version import __version__

#: Nothing may be fetched: styles only from the page itself, images only as data: URLs.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)

#: Longest input or check shown in full; longer ones are cut, their size said.
CLIP_CHARS = 600
#: Rows of a table, or cases, per block that the browser lays out only once it is near the
#: screen (``content-visibility: auto``): a 2,000-case report lays out a block or two to open.
BLOCK = 50


def esc(value: object) -> str:
    """Any outside value as HTML text (attribute-safe too), its controls shown as escapes."""
    return html.escape(terminal_safe_lines(str(value)), quote=True)


@cache
def stylesheet() -> str:
    """The reports' CSS, shipped beside this module."""
    return files("passk_tui.reports").joinpath("report.css").read_text(encoding="utf-8")


def page(title: str, body: str, *, attempt_lists: bool = True) -> str:
    """A whole HTML document: the frame every report shares around its ``body`` (already HTML);
    the footer points at attempt lists only where the page has them."""
    tail = "; open an attempt list to read its answers." if attempt_lists else "."
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="passk-tui {esc(__version__)}">\n'
        f"<title>{esc(title)}</title>\n<style>\n{stylesheet()}</style>\n</head>\n<body>\n"
        f"{body}\n"
        f"<footer>Written by passk-tui {esc(__version__)}. This file fetches nothing and needs no "
        f"script{tail}</footer>\n"
        "</body>\n</html>\n"
    )


def counted(count: int, noun: str) -> str:
    """``1 case``, ``2,000 cases``: a count with its noun, plural when it is not one."""
    return f"{count:,} {noun}{'s' * (count != 1)}"


def settings_list(pairs: Iterable[tuple[str, object]]) -> str:
    """A two-column list of labelled values; None values are left out."""
    items = "".join(
        f"<dt>{esc(label)}</dt><dd>{esc(value)}</dd>" for label, value in pairs if value is not None
    )
    return f'<dl class="settings">{items}</dl>'


def attempts_grid(cells: Sequence[int]) -> str:
    """One case's attempts as the app draws them: a symbol per attempt, coloured by state.

    Runs of one state share a span, and passed runs need none (the grid's own colour is
    passed's), so 50 attempts cost a handful of elements, not 50.
    """
    parts = [
        symbols
        if state == Cell.PASSED
        else f'<span class="s-{NAMES[Cell(state)]}">{symbols}</span>'
        for state, run in groupby(cells)
        for symbols in (SYMBOLS[Cell(state)] * len(list(run)),)
    ]
    return f'<span class="grid">{"".join(parts)}</span>'


def legend(states: Sequence[Cell] = (Cell.PASSED, Cell.WRONG, Cell.ERRORED, Cell.PENDING)) -> str:
    """What each symbol of the grid means."""
    items = "".join(
        f'<span><span class="grid"><span class="s-{NAMES[s]}">{SYMBOLS[s]}</span></span> '
        f"{NAMES[s]}</span>"
        for s in states
    )
    return f'<div class="legend">{items}</div>'


def value_text(value: Any) -> str:
    """An answer or input as text: a string as itself, any other JSON value as its JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)


def cut_text(text: str, limit: int, size: int | None = None) -> str:
    """Text as HTML (for an element's text, never an attribute), cut to ``limit`` characters
    with its full size said when longer, its controls shown as escapes (``terminal_safe_lines``).

    ``size`` is the full length when ``text`` is already only the start of it (a stored
    answer past ``core.inputs.bounds.OUTPUT_LIMIT``).
    """
    size = len(text) if size is None else size
    if size <= limit and len(text) <= limit:
        return html.escape(terminal_safe_lines(text), quote=False)
    return f"{html.escape(terminal_safe_lines(text[:limit]), quote=False)}… [{size:,} characters in all]"


def clipped(text: str, limit: int = CLIP_CHARS) -> str:
    """Text in a ``<pre>``, cut to ``limit`` characters, its size said when longer."""
    return f"<pre>{cut_text(text, limit)}</pre>"


def input_and_check(case: Case, prefix: str = "", decided_by: str | None = None) -> str:
    """A case's input and its check (as written in the cases file), each clipped; an imported
    case has none of ours: its tool decided (``decided_by``)."""
    if case.spec is not None:
        check = json.dumps(case.spec, ensure_ascii=False, default=str)
    else:
        check = f"none: {decided_by or 'passes when its Turn completes'}"
    return (
        f'<p class="note">{esc(prefix)}{"Conversation" if case.conversational else "Input"}</p>'
        f"{clipped(value_text(case.conversation() or case.input))}"
        f'<p class="note">{esc(prefix)}Check</p>{clipped(check)}'
    )


def blocks(parts: Sequence[str], rem_each: float, before: str = "", after: str = "") -> str:
    """``parts`` (rows, cases) in blocks of BLOCK, each laid out by the browser only near the screen.

    ``rem_each`` is a part's likely height: a block's placeholder height until it is first
    drawn (the browser then remembers the real one). ``before`` and ``after`` wrap each
    block's parts (a table's opening and closing tags).
    """
    return "".join(
        f'<div class="block" style="contain-intrinsic-size:auto {len(chunk) * rem_each:.0f}rem">'
        f"{before}{''.join(chunk)}{after}</div>"
        for start in range(0, len(parts), BLOCK)
        for chunk in (parts[start : start + BLOCK],)
    )


def interval_bar(interval: Interval, mark: float | None = None) -> str:
    """An interval as a bar over [0, 1] (one element), the gate's threshold marked when given."""
    high = max(interval.high, interval.low + 0.01)
    gate = "" if mark is None else f";--g:{mark * 100:.1f}%"
    style = f"--l:{interval.low * 100:.1f}%;--h:{high * 100:.1f}%{gate}"
    return f'<span class="bar" style="{style}"></span>'
