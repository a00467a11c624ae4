"""Errored attempts across cases grouped by their error, ids and timings stripped so alike failures meet.

"6x ConnectionResetError: [Errno 104] Connection reset by peer", "4x timed_out:
no Turn within the 30 s deadline": the same failure met by different Runs
carries different run ids, hex digests and elapsed times; those are replaced by
placeholders. Short integers (HTTP statuses, errno, a deadline) are kept: they
tell failures apart, and so are a URL's scheme, host and port and an IPv4 address
(``http://127.0.0.1:8000/…``): where it failed, not which Run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.text.amounts import counted
from passk_tui.core.text.terminal_text import terminal_safe

#: Ids of the shapes stacks and libraries print, most specific first.
_PLACEHOLDERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<id>",
    ),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<addr>"),
    # ULIDs and prefixed ids (run_01HX..., turn-8f3a...): a word mixing letters and digits.
    (
        re.compile(r"\b(?:[a-z]+[_-])?(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{16,}\b", re.I),
        "<id>",
    ),
    (re.compile(r"\b[0-9a-f]{8,}\b", re.I), "<id>"),
    (re.compile(r"\b\d+\.\d+\b"), "<n>"),
    (re.compile(r"\b\d{5,}\b"), "<n>"),
)
#: What stays as written: a URL's scheme, host and port, and an IPv4 address with its port.
_PLACES = re.compile(
    r"([a-z][a-z0-9+.-]*://[^\s/?#'\"<>]+|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b)", re.I
)
#: How much of a long (multi-line) error the group is named by.
LABEL_WIDTH = 160
#: The groups named after the headless table (the largest); the rest are counted.
GROUPS_SAID = 3
#: Cases named per group before the rest are counted.
CASES_NAMED = 4


def normalised_error(status: str, error: str | None) -> str:
    """The error with ids, times and fractional numbers replaced, on one line (the group's key)."""
    if not error:
        return status
    # re.split with a group: the odd parts are places, kept; only the rest is normalised.
    parts = _PLACES.split(" ".join(error.split()))
    for i in range(0, len(parts), 2):
        for pattern, placeholder in _PLACEHOLDERS:
            parts[i] = pattern.sub(placeholder, parts[i])
    return f"{status}: {''.join(parts)}"


@dataclass(frozen=True, slots=True)
class ErrorGroup:
    """Errored attempts that failed alike, with the cases they came from."""

    label: str
    status: str
    attempts: tuple[tuple[str, int], ...]
    """(case, attempt) of every member, in case then attempt order."""
    example: str | None
    """One member's error as recorded, for the detail (and to copy)."""
    retries: tuple[int, ...] = ()
    """The retries each member took, in the order of ``attempts``."""

    @property
    def count(self) -> int:
        return len(self.attempts)

    @property
    def total_retries(self) -> int:
        """Every retry the group's attempts took: how hard the target tried before giving up."""
        return sum(self.retries)

    def cases(self) -> dict[str, int]:
        """How many of the group's attempts each case contributed, in case order."""
        counts: dict[str, int] = {}
        for case, _ in self.attempts:
            counts[case] = counts.get(case, 0) + 1
        return counts

    def cases_text(self, limit: int = CASES_NAMED) -> str:
        """``weather-tool x4, summary x2`` (then ``+N cases``), names terminal-safe."""
        counts = list(self.cases().items())
        shown = ", ".join(f"{terminal_safe(case)} x{count}" for case, count in counts[:limit])
        return shown + (f" +{len(counts) - limit} cases" if len(counts) > limit else "")


def error_groups(records: Iterable[AttemptRecord]) -> list[ErrorGroup]:
    """The errored attempts grouped by ``normalised_error``, largest group first."""
    members: dict[str, list[AttemptRecord]] = {}
    errored = (r for r in records if r.outcome is Outcome.ERRORED)  # the few, then sorted
    for record in sorted(errored, key=lambda r: (r.case_index, r.attempt)):
        members.setdefault(normalised_error(record.status, record.error), []).append(record)
    groups = [
        ErrorGroup(
            label if len(label) <= LABEL_WIDTH else label[: LABEL_WIDTH - 1] + "…",
            same[0].status,
            tuple((r.case, r.attempt) for r in same),
            same[0].error,
            tuple(r.retries for r in same),
        )
        for label, same in members.items()
    ]
    groups.sort(key=lambda g: -g.count)  # stable: equal counts keep first-met order
    return groups


def errors_said(groups: list[ErrorGroup], limit: int = GROUPS_SAID) -> list[str]:
    """Why attempts errored, in a few lines: what the headless face prints after its table
    (the app's Errors view shows the same groups in full).

    ``errored: 6 attempts, 2 kinds of error``, then the largest groups, each
    ``4x failed: weather tool: upstream timed out (weather-tool x4)``."""
    if not groups:
        return []
    errored = sum(group.count for group in groups)
    lines = [f"errored: {counted(errored, 'attempt')}, {counted(len(groups), 'kind')} of error"]
    lines += [
        f"  {group.count}x {terminal_safe(group.label)} ({group.cases_text()})"
        for group in groups[:limit]
    ]
    if len(groups) > limit:
        lines.append(f"  and {counted(len(groups) - limit, 'kind')} more")
    return lines
