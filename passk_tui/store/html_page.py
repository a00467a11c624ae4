"""The frame and shared pieces of passk-tui's HTML reports (an evaluation's, a comparison's).

A report is one self-contained file: inline CSS, no script, and a Content-Security-Policy
that forbids every fetch, so a value that somehow slipped through escaping still could not
load anything. Every outside value goes through ``esc``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib.resources import files
from itertools import groupby
from typing import Any

from passk_tui import __version__
from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.cases import Case
from passk_tui.core.glyphs import NAMES, SYMBOLS
from passk_tui.core.intervals import Interval
from passk_tui.core.progress import Cell

#: Nothing may be fetched: styles only from the page itself, images only as data: URLs.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)

#: Longest answer, input or error shown in full; longer ones are cut, their size said.
CLIP_CHARS = 600
#: Longest answer, reason or error shown in full in an attempt's row (inputs get CLIP_CHARS).
ANSWER_CHARS = 120


def esc(value: object) -> str:
    """Any outside value as HTML text (attribute-safe too)."""
    return html.escape(str(value), quote=True)


@cache
def stylesheet() -> str:
    """The reports' CSS, shipped beside this module."""
    return files("passk_tui.store").joinpath("report.css").read_text(encoding="utf-8")


def page(title: str, body: str) -> str:
    """A whole HTML document: the frame every report shares around its ``body`` (already HTML)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="passk-tui {esc(__version__)}">\n'
        f"<title>{esc(title)}</title>\n<style>\n{stylesheet()}</style>\n</head>\n<body>\n"
        f"{body}\n"
        f"<footer>Written by passk-tui {esc(__version__)}. This file fetches nothing and needs no "
        "script; open an attempt list to read its answers.</footer>\n"
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

    Runs of one state share a span, so 50 attempts cost a handful of elements, not 50.
    """
    parts = [
        f'<span class="s-{NAMES[Cell(state)]}">{SYMBOLS[Cell(state)] * len(list(run))}</span>'
        for state, run in groupby(cells)
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


def clipped(text: str, limit: int = CLIP_CHARS, *, tag: str | None = "pre") -> str:
    """Text (in ``tag``, or bare), cut to ``limit`` characters, its size said when longer."""
    cut = len(text) > limit
    shown = esc(text[:limit]) + ("…" if cut else "")
    body = shown if tag is None else f"<{tag}>{shown}</{tag}>"
    if not cut:
        return body
    return f'{body}<small class="clipped">{len(text):,} characters in all</small>'


def input_and_check(case: Case, prefix: str = "") -> str:
    """A case's input and its check (as written in the cases file), each clipped."""
    check = (
        "none: passes when its Turn completes"
        if case.spec is None
        else json.dumps(case.spec, ensure_ascii=False, default=str)
    )
    return (
        f'<p class="note">{esc(prefix)}Input</p>{clipped(value_text(case.input))}'
        f'<p class="note">{esc(prefix)}Check</p>{clipped(check)}'
    )


def interval_bar(interval: Interval, mark: float | None = None) -> str:
    """An interval as a bar over [0, 1] (one element), the gate's threshold marked when given."""
    high = max(interval.high, interval.low + 0.01)
    gate = "" if mark is None else f";--g:{mark * 100:.1f}%"
    style = f"--l:{interval.low * 100:.1f}%;--h:{high * 100:.1f}%{gate}"
    return f'<span class="bar" style="{style}"></span>'


def attempts_list(records: Sequence[AttemptRecord]) -> str:
    """One case's finished attempts, by number, as an ordered list (the outcome drawn by CSS).

    Lean on purpose: a browser parses a report of 100,000 attempts whole even while every
    case is closed, so an attempt is one list item and one span for its answer.
    """
    first_with: dict[str, int] = {}
    before = [0, *(a.attempt for a in records)]
    items = "".join(
        _attempt_item(a, first_with, numbered=a.attempt != before[i] + 1)
        for i, a in enumerate(records)
    )
    return f'<ol class="attempts">{items}</ol>'


def _attempt_item(a: AttemptRecord, first_with: dict[str, int], *, numbered: bool) -> str:
    """One attempt; an answer given before in this case points at its first attempt instead.

    The list numbers its items itself: ``value`` is written only where attempts skip a number.
    """
    name = str(a.outcome)
    parts = [name if a.outcome is not Outcome.ERRORED else f"{name} ({esc(a.status)})"]
    parts.append(f"{a.duration:.2f} s")
    if a.output is not None:
        text = value_text(a.output)
        first = first_with.setdefault(text, a.attempt)
        if first == a.attempt:
            parts.append(f'<span class="answer">{clipped(text, ANSWER_CHARS, tag=None)}</span>')
        else:
            parts.append(f'<span class="answer same">same answer as #{first}</span>')
    if a.outcome is Outcome.WRONG and a.reason is not None:
        parts.append(f"failed: {clipped(a.reason, ANSWER_CHARS, tag=None)}")
    if a.outcome is Outcome.ERRORED:
        ids = " / ".join(esc(i) for i in (a.run_id, a.turn_id) if i)
        error = clipped(a.error or "no error text", ANSWER_CHARS, tag=None)
        parts.append(error + (f'<small class="ids">{ids}</small>' if ids else ""))
    value = f' value="{a.attempt}"' if numbered else ""
    return f'<li{value} class="{name}">{" · ".join(parts)}</li>'
