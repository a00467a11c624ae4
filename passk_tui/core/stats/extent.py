"""How far an evaluation got and how far it can go: one reading every face describes it from.

A fixed-n evaluation plans cases x attempts up front. An adaptive one plans a first
round (cases x --attempts), then hands out more, one at a time, up to a cap (cases x
--max-attempts); its total grows while it runs, and each case stops for a reason
(``core.stats.gating.stopping``). History, the Results header, the progress lines and the headless
stderr all said this differently ("102/200", "102 of 102", "161/169 ~0:00 left", "under
gate 1" beside "0 failed, 2 undecided"); they now read one ``Extent`` and the words in
``core.render.extent_text``.

A Run budget (``--budget-runs``) bounds how far it can go: an attempt finishes only on a
Run started, so at most the attempts finished, those still open and the Runs left in the
budget (``BudgetedPolicy.runs_bound``; a resume counts the Runs the store says were
started). The lines count to that when it is below the plan, and work out the time left
for it. A cost budget gives no such bound (what an attempt costs is known only once it
lands), so a run under one still counts to its plan.

The gate's counts are the evaluation's own reading (``core.run.sampling.reading``: the
confident gate for an adaptive run), never a second gate worked out beside it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.stats.gating.gate import Reading
from passk_tui.core.stats.gating.stopping import StopKind, StopReason
from passk_tui.core.stats.progress import Progress

#: The stop reasons in the order they are counted in words.
STOP_KINDS: tuple[StopKind, ...] = ("decided pass", "decided fail", "precise", "capped")


@dataclass(frozen=True, slots=True)
class Extent:
    """An evaluation's attempts (finished, known of, planned, at most) and its cases' standing."""

    cases: int
    #: Attempts finished and counted (passed, wrong, errored).
    finished: int
    #: Attempts known of so far: the plan, and any an adaptive policy handed out past it.
    known: int
    #: Attempts per case in the first round (``--attempts``).
    per_case: int
    #: Adaptive: the cap per case (``--max-attempts``); None for a fixed n.
    cap: int | None = None
    #: Adaptive: why the cases that stopped getting attempts stopped, counted by kind.
    stopped: Mapping[StopKind, int] = field(default_factory=dict)
    #: The gate's verdicts by the evaluation's own reading; None without --require.
    failing: int | None = None
    undecided: int | None = None
    #: A Run budget: the most attempts there can be under it (finished, open, Runs left);
    #: None without one (a cost budget included: it cannot be known ahead).
    budget_most: int | None = None

    @property
    def adaptive(self) -> bool:
        return self.cap is not None

    @property
    def planned(self) -> int:
        """The first round: cases x --attempts (a fixed n: every attempt)."""
        return self.cases * self.per_case

    @property
    def most(self) -> int:
        """The most attempts there can be: every case at the cap (a fixed n: the plan)."""
        return self.cases * (self.per_case if self.cap is None else self.cap)

    @property
    def _plan_most(self) -> int:
        """The most attempts the plan still allows: adaptive, while cases are sampled, every
        case to the cap; else the attempts known of."""
        return self.most if self.adaptive and self.sampling > 0 else self.known

    @property
    def total(self) -> int:
        """What the lines count to and the time left is for: the most attempts the plan
        still allows, no more than a Run budget allows."""
        plan = self._plan_most
        return plan if self.budget_most is None else min(plan, self.budget_most)

    @property
    def budget_bound(self) -> bool:
        """Whether a Run budget holds the evaluation below what its plan allows."""
        return self.budget_most is not None and self.budget_most < self._plan_most

    @property
    def decided(self) -> int:
        """Adaptive: cases stopped as decided (pass, fail or precise)."""
        return sum(n for kind, n in self.stopped.items() if kind != "capped")

    @property
    def capped(self) -> int:
        """Adaptive: cases that reached the cap undecided."""
        return self.stopped.get("capped", 0)

    @property
    def sampling(self) -> int:
        """Adaptive: cases not stopped yet (still getting attempts, or left so by a stop)."""
        return self.cases - sum(self.stopped.values()) if self.adaptive else 0

    @property
    def growing(self) -> bool:
        """Whether more attempts than are known of may still come (so no time left is sure)."""
        return self.adaptive and self.sampling > 0 and self.known < self.total


def extent(
    settings: Settings,
    cases: int,
    finished: int,
    known: int,
    stop_reasons: Mapping[int, StopReason] | None = None,
    reading: Reading | None = None,
    runs_bound: int | None = None,
) -> Extent:
    """The extent of an evaluation from its settings, counts, stop reasons and gate reading;
    ``runs_bound``: the most attempts still to finish under a Run budget."""
    kinds = Counter(reason.kind for reason in (stop_reasons or {}).values())
    gate = reading if reading is not None and reading.require is not None else None
    return Extent(
        cases=cases,
        finished=finished,
        known=known,
        per_case=settings.attempts,
        cap=settings.max_attempts,
        stopped={kind: kinds[kind] for kind in STOP_KINDS if kinds[kind]},
        failing=None if gate is None else len(gate.failing),
        undecided=None if gate is None else len(gate.undecided),
        budget_most=None if runs_bound is None else finished + runs_bound,
    )


def progress_extent(
    progress: Progress, settings: Settings, reading: Reading | None = None
) -> Extent:
    """The extent of an evaluation as its Progress holds it (live, or filled from the store)."""
    return extent(
        settings,
        len(progress.case_names),
        progress.finished,
        progress.total,
        progress.stop_reasons,
        reading,
        progress.runs_bound(),
    )


def known_attempts(per_case: int, counts: Sequence[int]) -> int:
    """Attempts known of when only each case's finished count is stored: its plan or more."""
    return sum(max(per_case, n) for n in counts)


def running_seconds(records: Iterable[Iterable[AttemptRecord]]) -> float | None:
    """Seconds during which at least one attempt was running; None before any ended.

    The union of the attempts' [start, end] spans, so the idle time between a
    session and its resume or extension (hours, maybe) is not counted as running.
    """
    spans = sorted((r.started, r.ended) for case in records for r in case)
    if not spans:
        return None
    total = 0.0
    start, end = spans[0]
    for begin, finish in spans[1:]:
        if begin > end:
            total += end - start
            start, end = begin, finish
        else:
            end = max(end, finish)
    return total + end - start
