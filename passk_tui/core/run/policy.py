"""Which attempt to start next: the sampling policy the pool's workers pull from.

The engine does not plan every attempt up front; each free worker asks the
policy, which sees every finished record. Fixed n and adaptive are two
policies; a resume or an extension is the same policy built again from the
stored records, so it hands out exactly the attempts that have no record.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import parse_whole_number
from passk_tui.core.stats.gating.gate import Reading
from passk_tui.core.stats.gating.settling import more_to_decide
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.stats.rates.figures import CaseFigures

#: A stop rule: from a case's outcomes by attempt number (1 a pass, 0 not), why it may stop
#: (``core.stats.gating.stopping``), or None.
StopRule = Callable[[bytes], "StopReason | None"]


@dataclass(frozen=True, slots=True)
class Slot:
    """One attempt to start: which case, which attempt number, and which retake of it (0: the first)."""

    case_index: int
    attempt: int
    retake: int = 0


class Pause(Enum):
    """What a policy says when it has no attempt to give."""

    WAIT = "wait"
    """Nothing now: ask again when a record lands (in-flight attempts may call for more)."""
    DONE = "done"
    """Nothing more, ever: the worker may stop."""


class SamplingPolicy(Protocol):
    """What the engine asks for work and tells of each attempt's end."""

    def next(self) -> Slot | Pause:
        """The attempt a free worker should start, or why there is none."""
        ...

    def landed(self, record: AttemptRecord) -> None:
        """A handed-out attempt's record was stored and counted."""
        ...

    def dropped(self, slot: Slot) -> None:
        """A handed-out attempt ended without a record (withdrawn, or the evaluation failed)."""
        ...

    def planned(self, case_index: int) -> int:
        """How many attempts the case has, recorded or handed out or still to come, as known now."""
        ...

    def most_left(self) -> int:
        """The most attempts still to start, as built (what a resume or an extension would run)."""
        ...

    def runs_bound(self) -> int | None:
        """The most attempts still to finish under a Run budget; None when nothing bounds them."""
        ...

    @property
    def spent(self) -> bool:
        """Whether a budget refused an attempt: the budget, not the policy, ended the evaluation."""
        ...

    @property
    def stop_reasons(self) -> Mapping[int, StopReason] | None:
        """Per case a rule stopped sampling (adaptive): why; None when no rule stops a case
        (a fixed n: every case runs its attempts)."""
        ...


def first_pass(
    limits: list[int], done: set[tuple[int, int]], retakes: Mapping[tuple[int, int], int]
) -> Iterator[Slot]:
    """Attempt-major (every case's attempt 1, then 2, ...) up to ``limits[case]``, skipping ``done``.

    A generator, so ten million attempts cost nothing until they are asked for;
    attempt-major order makes the live grid fill evenly and gives every case a
    first figure soon. ``retakes`` maps (case, attempt) to the retake to run
    (an attempt withdrawn before runs again under a new key).
    """
    top = max(limits, default=0)
    for attempt in range(1, top + 1):
        for case_index, limit in enumerate(limits):
            if attempt <= limit and (case_index, attempt) not in done:
                yield Slot(case_index, attempt, retakes.get((case_index, attempt), 0))


def _recorded(records: Iterable[AttemptRecord]) -> set[tuple[int, int]]:
    return {(r.case_index, r.attempt) for r in records}


class FixedPolicy:
    """Every case gets attempts 1..``attempts``; resume = the same policy with the stored records."""

    def __init__(
        self,
        case_count: int,
        attempts: int,
        records: Iterable[AttemptRecord] = (),
        retakes: Mapping[tuple[int, int], int] | None = None,
    ) -> None:
        self.attempts = attempts
        done = _recorded(records)
        #: The attempts without a record when the policy was built.
        self.left = case_count * attempts - sum(1 for _, attempt in done if attempt <= attempts)
        self._pending = first_pass([attempts] * case_count, done, retakes or {})

    def next(self) -> Slot | Pause:
        return next(self._pending, Pause.DONE)

    def landed(self, record: AttemptRecord) -> None:
        return None

    def dropped(self, slot: Slot) -> None:
        return None

    def planned(self, case_index: int) -> int:
        return self.attempts

    def most_left(self) -> int:
        """The attempts still to start, as built (what a resume or an extension would run)."""
        return self.left

    def runs_bound(self) -> int | None:
        return None  # no budget here (``BudgetedPolicy`` holds one)

    @property
    def spent(self) -> bool:
        return False

    @property
    def stop_reasons(self) -> Mapping[int, StopReason] | None:
        return None


class AdaptivePolicy:
    """Every case first gets ``attempts``; then each still-undecided case more, up to ``max_attempts``.

    A case is judged on the longest run of attempt numbers 1..m that have all
    finished (``core.stats.gating.stopping`` says why: whichever finish first may
    over-represent the fast outcome), at every m from ``attempts`` on:
    ``stop_rule(outcomes 1..m)`` naming a reason decides it for good (the reason
    keeps that m; attempts already in flight still finish and count), and a
    case reaching ``max_attempts`` undecided is capped. So a case's reason
    depends on its outcomes by attempt number alone, not on timing: a resume or
    an extension rebuilt from the records reaches the same one. Extra attempts
    go one per free worker to the undecided case with the fewest attempts so
    far, so cases interleave and, while any undecided case is below the cap, no
    worker idles. Attempts left unrecorded before (gaps below a case's highest
    recorded attempt) are run first, so a resume replays nothing; so are the
    attempts ``in_flight`` when it stopped, whatever their case's records
    decide: their Runs may have started, and what the stack ran is counted, as
    it would have been had the run not stopped.

    ``closest_first`` (a budget is set): extra attempts go instead to the undecided
    case its expected path says is closest to settling (``core.stats.gating.settling``),
    counting the attempts it has in flight; a case they are expected to settle gets
    none until they land. Cases that would not settle below the cap come last.
    """

    def __init__(
        self,
        case_count: int,
        attempts: int,
        max_attempts: int,
        stop_rule: StopRule,
        records: Iterable[AttemptRecord] = (),
        retakes: Mapping[tuple[int, int], int] | None = None,
        in_flight: Iterable[Slot] = (),
        *,
        closest_first: bool = False,
    ) -> None:
        if max_attempts < attempts:
            raise ValueError("max_attempts must be at least attempts")
        records = list(records)
        self.attempts = attempts
        self.max_attempts = max_attempts
        self.stop_rule = stop_rule
        #: Per case that stopped being sampled: decided at n, or capped at N.
        self.stop_reasons: dict[int, StopReason] = {}
        #: Per case: the finished attempts past its prefix (attempt -> passed).
        self._ahead: list[dict[int, bool]] = [{} for _ in range(case_count)]
        #: Per case: the outcomes of its prefix 1..m, all finished (1 a pass, 0 not).
        self._prefix = [bytearray() for _ in range(case_count)]
        highest = [0] * case_count
        for record in records:
            self._ahead[record.case_index][record.attempt] = record.outcome is Outcome.PASSED
            highest[record.case_index] = max(highest[record.case_index], record.attempt)
        for slot in in_flight:
            highest[slot.case_index] = max(highest[slot.case_index], slot.attempt)
        #: The highest attempt number handed out (or recorded, or in flight before) per case.
        self._top = [max(attempts, h) for h in highest]
        self._retakes = retakes or {}
        self._pending = first_pass(list(self._top), _recorded(records), self._retakes)
        self._in_flight = 0
        self._ready: list[tuple[int, int]] = []  # (top, case): undecided cases below the cap
        self._queued: set[int] = set()
        self._closest_first = closest_first
        #: closest_first: per ready case, the more attempts its expected path needs (None: many).
        self._to_settle: dict[int, int | None] = {}
        for case_index in range(case_count):
            self._advance(case_index)

    def next(self) -> Slot | Pause:
        slot = next(self._pending, None)
        if slot is None:
            slot = self._extra()
        if slot is not None:
            self._in_flight += 1
            return slot
        return Pause.WAIT if self._in_flight else Pause.DONE

    def _extra(self) -> Slot | None:
        """One more attempt for the least-sampled undecided case below the cap, or None."""
        if self._closest_first:
            return self._closest()
        while self._ready:
            top, case_index = heapq.heappop(self._ready)
            if case_index in self.stop_reasons:
                self._queued.discard(case_index)
                continue
            self._top[case_index] = top + 1
            if top + 1 < self.max_attempts:
                heapq.heappush(self._ready, (top + 1, case_index))
            else:
                self._queued.discard(case_index)
            return Slot(case_index, top + 1, self._retakes.get((case_index, top + 1), 0))
        return None

    def _closest(self) -> Slot | None:
        """One more attempt for the ready case closest to settling, or None (wait, or none left)."""
        best: tuple[float, int, int] | None = None
        for case_index in list(self._queued):
            if case_index in self.stop_reasons:
                self._queued.discard(case_index)
                continue
            if case_index not in self._to_settle:
                room = self.max_attempts - len(self._prefix[case_index])
                prefix = bytes(self._prefix[case_index])
                self._to_settle[case_index] = more_to_decide(prefix, self.stop_rule, room)
            needed = self._to_settle[case_index]
            top = self._top[case_index]
            outstanding = top - len(self._prefix[case_index]) - len(self._ahead[case_index])
            left = float("inf") if needed is None else needed - outstanding
            if left <= 0:
                continue  # what is in flight is expected to settle it
            key = (left, top, case_index)
            if best is None or key < best:
                best = key
        if best is None:
            return None
        case_index = best[2]
        self._top[case_index] += 1
        if self._top[case_index] >= self.max_attempts:
            self._queued.discard(case_index)
        attempt = self._top[case_index]
        return Slot(case_index, attempt, self._retakes.get((case_index, attempt), 0))

    def landed(self, record: AttemptRecord) -> None:
        self._in_flight -= 1
        self._ahead[record.case_index][record.attempt] = record.outcome is Outcome.PASSED
        self._advance(record.case_index)

    def dropped(self, slot: Slot) -> None:
        self._in_flight -= 1

    def _advance(self, case_index: int) -> None:
        """Grow the case's finished prefix, judging it at each new length; queue it if undecided."""
        ahead, prefix = self._ahead[case_index], self._prefix[case_index]
        while (m := len(prefix) + 1) in ahead:
            prefix.append(ahead.pop(m))
            self._to_settle.pop(case_index, None)
            if m >= self.attempts and case_index not in self.stop_reasons:
                self._judge(case_index, m)
        if (
            case_index not in self.stop_reasons
            and len(prefix) >= self.attempts
            and self._top[case_index] < self.max_attempts
            and case_index not in self._queued
        ):
            self._queued.add(case_index)
            if not self._closest_first:
                heapq.heappush(self._ready, (self._top[case_index], case_index))

    def _judge(self, case_index: int, n: int) -> None:
        """Stop the case when the rule names a reason at n, or when n is the cap."""
        reason = self.stop_rule(bytes(self._prefix[case_index]))
        if reason is None and n >= self.max_attempts:
            reason = StopReason("capped", n)
        if reason is not None:
            self.stop_reasons[case_index] = reason

    def planned(self, case_index: int) -> int:
        return self._top[case_index]

    def most_left(self) -> int:
        """The most attempts still to start, as built: the gaps, and each undecided case up to the cap."""
        gaps = sum(
            top - len(self._prefix[i]) - len(self._ahead[i]) for i, top in enumerate(self._top)
        )
        extra = sum(
            self.max_attempts - top for i, top in enumerate(self._top) if i not in self.stop_reasons
        )
        return gaps + extra

    def runs_bound(self) -> int | None:
        return None  # no budget here (``BudgetedPolicy`` holds one)

    @property
    def spent(self) -> bool:
        return False


def worth_more(reading: Reading) -> list[int]:
    """The cases (indices) more attempts would tell most about: undecided by the gate, or flaky."""
    return [
        index
        for index, case in enumerate(reading.cases)
        if case.verdict == "undecided" or 0 < case.figures.passed < case.figures.n
    ]


def extension_runs(
    figures: Sequence[CaseFigures], attempts: int, cases: Iterable[int] | None = None
) -> int:
    """The Runs that bring ``cases`` (default: every case) to ``attempts`` recorded attempts each."""
    chosen = range(len(figures)) if cases is None else cases
    return sum(max(0, attempts - figures[i].n) for i in chosen)


def parse_more_attempts(text: str, stored: int) -> int:
    """The new attempts per case: a whole number above the ``stored`` attempts (fewer: refused)."""
    value = parse_whole_number(text)
    if value <= stored:
        raise InputError(f"must be more than the {stored} attempts per case it has, got {value}")
    return value
