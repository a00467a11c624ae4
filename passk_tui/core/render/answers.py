"""A case's distinct answers grouped with their counts ("Sydney x4, Canberra x1")."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from passk_tui.core.attempt import AttemptRecord, Outcome


def shown_answer(output: Any) -> str:
    """An answer as text: a string as is, anything else as indented JSON (keys sorted, so equal
    objects group together)."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False, indent=2, sort_keys=True)


@dataclass(frozen=True, slots=True)
class AnswerGroup:
    """One distinct answer and the attempts that gave it, with how the check judged them."""

    text: str
    attempts: tuple[int, ...]
    passed: int
    wrong: int
    errored: int

    @property
    def count(self) -> int:
        return len(self.attempts)


@dataclass(frozen=True, slots=True)
class DistinctAnswers:
    """Every answer a case's finished attempts gave, most frequent first."""

    groups: tuple[AnswerGroup, ...]
    no_answer: tuple[int, ...]
    """Attempts that ended with no answer at all (errored before any output)."""

    def summary(self, limit: int = 4) -> str:
        """``Sydney x4, Canberra x1`` (then ``and N more``), on one line."""
        shown = [f"{_one_line(g.text)} x{g.count}" for g in self.groups[:limit]]
        if len(self.groups) > limit:
            shown.append(f"and {len(self.groups) - limit} more")
        if self.no_answer:
            shown.append(f"no answer x{len(self.no_answer)}")
        return ", ".join(shown)


def distinct_answers(records: Iterable[AttemptRecord]) -> DistinctAnswers:
    """Group the attempts by their exact answer text; ties keep the order answers first came."""
    by_text: dict[str, list[AttemptRecord]] = {}
    no_answer: list[int] = []
    for record in sorted(records, key=lambda r: r.attempt):
        if record.output is None:
            no_answer.append(record.attempt)
            continue
        by_text.setdefault(shown_answer(record.output), []).append(record)
    groups = [
        AnswerGroup(
            text,
            tuple(r.attempt for r in same),
            sum(r.outcome is Outcome.PASSED for r in same),
            sum(r.outcome is Outcome.WRONG for r in same),
            sum(r.outcome is Outcome.ERRORED for r in same),
        )
        for text, same in by_text.items()
    ]
    groups.sort(key=lambda g: -g.count)  # stable: equal counts stay in first-seen order
    return DistinctAnswers(tuple(groups), tuple(no_answer))


def _one_line(text: str, width: int = 40) -> str:
    """An answer squeezed onto one short line for a summary."""
    flat = " ".join(text.split()) or '""'
    return flat if len(flat) <= width else flat[: width - 1] + "…"
