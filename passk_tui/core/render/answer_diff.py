"""Two attempts' answers side by side: which pair to show first, and their line and character diff."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.render.answers import shown_answer

LineKind = Literal["same", "removed", "added"]


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of the diff; ``changed`` are the (start, end) spans that differ within it."""

    kind: LineKind
    text: str
    changed: tuple[tuple[int, int], ...] = ()


def default_pair(records: Sequence[AttemptRecord]) -> tuple[int, int] | None:
    """The attempts to diff first: the first passing against the first failing one.

    Failing means wrong, or errored with an answer. Without both, the first two
    attempts whose answers differ; None when no two answers differ.
    """
    ordered = sorted(records, key=lambda r: r.attempt)
    passing = next((r for r in ordered if r.outcome is Outcome.PASSED), None)
    failing = next(
        (r for r in ordered if r.outcome is not Outcome.PASSED and r.output is not None), None
    )
    if passing is not None and failing is not None:
        return passing.attempt, failing.attempt
    answered = [r for r in ordered if r.output is not None]
    for first in answered:
        for other in answered:
            if shown_answer(other.output) != shown_answer(first.output):
                return first.attempt, other.attempt
    return None


def answer_diff(old: str, new: str) -> list[DiffLine]:
    """The lines of ``old`` and ``new`` aligned by difflib, changed characters marked in pairs."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    lines: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            lines.extend(DiffLine("same", text) for text in old_lines[i1:i2])
            continue
        removed, added = old_lines[i1:i2], new_lines[j1:j2]
        paired = min(len(removed), len(added)) if tag == "replace" else 0
        spans = [_changed_spans(removed[i], added[i]) for i in range(paired)]
        lines.extend(
            DiffLine("removed", text, spans[i][0] if i < paired else ((0, len(text)),))
            for i, text in enumerate(removed)
        )
        lines.extend(
            DiffLine("added", text, spans[i][1] if i < paired else ((0, len(text)),))
            for i, text in enumerate(added)
        )
    return lines


def _changed_spans(
    old: str, new: str
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The character spans of ``old`` and of ``new`` that the other line does not share."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            old_spans.append((i1, i2))
        if j2 > j1:
            new_spans.append((j1, j2))
    return tuple(old_spans), tuple(new_spans)


def default_cross_pair(
    baseline: Sequence[AttemptRecord], candidate: Sequence[AttemptRecord]
) -> tuple[AttemptRecord, AttemptRecord] | None:
    """A baseline answer and a candidate answer to diff first, across two versions of a case.

    The baseline's first passing answer against the candidate's first failing one
    (what a regression broke); else the other way round (what an improvement
    fixed); else the first answer of each. None when either side has no answer.
    """
    a = [r for r in sorted(baseline, key=lambda r: r.attempt) if r.output is not None]
    b = [r for r in sorted(candidate, key=lambda r: r.attempt) if r.output is not None]
    if not a or not b:
        return None

    def first(records: list[AttemptRecord], passed: bool) -> AttemptRecord | None:
        return next((r for r in records if (r.outcome is Outcome.PASSED) == passed), None)

    for a_passed in (True, False):
        old, new = first(a, a_passed), first(b, not a_passed)
        if old is not None and new is not None:
            return old, new
    return a[0], b[0]
