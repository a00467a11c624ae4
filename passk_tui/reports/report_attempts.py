"""One case's attempts as the HTML reports show them: a text block per outcome, a line per attempt.

A browser parses a report of 100,000 attempts whole even while every case is closed,
and each element costs it far more than the same bytes of text (docs/benchmarks/notebook.md,
"HTML report at scale"): so a case's attempts are at most one heading and one ``<pre>``
per outcome, wrong first, then errored, then passed, each attempt a numbered line in its
block with its seconds, its answer, and why the check failed or the error.
"""

from __future__ import annotations

from collections.abc import Sequence

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.reading.vocabulary import Cell
from passk_tui.core.render.glyphs import SYMBOLS
from passk_tui.core.render.judge_text import votes_said
from passk_tui.core.text.decimals import fixed
from passk_tui.reports.html_page import cut_text, value_text

#: Longest answer, reason or error shown in full on an attempt's line; longer ones are cut.
ANSWER_CHARS = 120
#: A closed case's likely height in rem (its blocks' placeholder height, html_page.blocks).
CASE_REM = 2.4
#: The blocks' order: what a reviewer reads first.
ORDER = (Outcome.WRONG, Outcome.ERRORED, Outcome.PASSED)
#: The grid's symbol for each outcome, so a line reads the same without colour.
SYMBOL = {
    Outcome.PASSED: SYMBOLS[Cell.PASSED],
    Outcome.WRONG: SYMBOLS[Cell.WRONG],
    Outcome.ERRORED: SYMBOLS[Cell.ERRORED],
}
NEWLINE = "\n"
#: How to read the blocks, said once above the cases.
ATTEMPTS_NOTE = (
    "Each case's attempts, collapsed: open one to read them, grouped by outcome (wrong, "
    "errored, passed), one a line: its number and symbol, its seconds, its answer, and why the "
    "check failed or the error. An answer, reason or error the case gave before points back "
    "to the first attempt that gave it."
)
#: Whose fault each kind of failure is, said in its block's heading.
WHOSE = {Outcome.WRONG: " (the agent)", Outcome.ERRORED: " (the platform)"}


def attempts_list(records: Sequence[AttemptRecord]) -> str:
    """A case's finished attempts (by number), grouped by outcome: a heading and a block each."""
    if not records:
        return '<p class="note">No attempts recorded.</p>'
    width = len(str(max(a.attempt for a in records))) + 1
    given: dict[tuple[str, str], int] = {}
    lines: dict[Outcome, list[str]] = {}
    for a in records:
        lines.setdefault(a.outcome, []).append(_attempt_line(a, width, given))
    shown = sorted(lines, key=lambda o: ORDER.index(o) if o in ORDER else len(ORDER))
    return "".join(
        f'<p class="outcome {o}">{SYMBOL.get(o, "")} {len(lines[o]):,} {o}{WHOSE.get(o, "")}</p>'
        f'<pre class="attempts {o}">{NEWLINE.join(lines[o])}</pre>'
        for o in shown
    )


def _attempt_line(a: AttemptRecord, width: int, given: dict[tuple[str, str], int]) -> str:
    """``#3 ✗  1.20 s  answer``, then the reason or the error on lines indented under the answer.

    A text this case gave before (the same answer, reason or error) points at the first
    attempt that gave it instead of being written again.
    """
    head = (
        f"{'#' + str(a.attempt):>{width}} {SYMBOL.get(a.outcome, '?')} {fixed(a.duration):>6} s  "
    )
    parts = []
    answered = None
    if a.output is not None:
        text = value_text(a.output)
        answered = _first(given, "answer", text, a)
        parts.append(_shown("answer", text, answered, a.output_size))
    if a.outcome is Outcome.WRONG and a.reason is not None:
        first = _first(given, "reason", a.reason, a)
        if first is not None and first == answered:
            parts[-1] += ", failed the same way"
        else:
            parts.append("failed: " + _shown("reason", a.reason, first))
    said = votes_said(a)
    if said is not None:
        # The judge's last vote's words: why the majority went as it did, in short.
        last = next((v.text for v in reversed(a.votes) if v.text), None)
        parts.append(said + ("" if last is None else ": " + cut_text(last, ANSWER_CHARS)))
    if a.outcome is Outcome.ERRORED:
        error = a.error or "no error text"
        parts.append(f"[{a.status}] " + _shown("error", error, _first(given, "error", error, a)))
        ids = " / ".join(i for i in (a.run_id, a.turn_id) if i)
        if ids:
            parts.append(cut_text(ids, ANSWER_CHARS))
    indent = "\n" + " " * len(head)
    return head + indent.join(p.replace("\n", indent) for p in parts)


def _first(given: dict[tuple[str, str], int], kind: str, text: str, a: AttemptRecord) -> int | None:
    """The earlier attempt of this case that gave ``text`` as its ``kind``; None if ``a`` is first."""
    first = given.setdefault((kind, text), a.attempt)
    return None if first == a.attempt else first


def _shown(kind: str, text: str, first: int | None, size: int | None = None) -> str:
    """The text cut to ANSWER_CHARS (escaped), or ``same <kind> as #N`` pointing at ``first``."""
    if first is not None:
        return f"same {kind} as #{first}"
    return cut_text(text, ANSWER_CHARS, size)
