"""Budgets (``--budget-runs``, ``--budget-cost``, ``--budget-errors``): the policy that starts
nothing once one is spent.

A budget is held where attempts are handed out, so no face can get it wrong: the
engine's workers ask ``BudgetedPolicy.next`` for every attempt, on one event loop,
so the count is exact however many run at once. A Run is counted when its attempt
is handed out (before its request), once per idempotency key: a resend or a resume's
replay of a key in flight starts no new Run and costs nothing. Money is counted as
attempts land (every Turn that reported usage, errored ones included); the attempts
in flight when it is spent finish and count, so a cost budget may end a little over,
a Run budget never. What a resume spent before is counted from the store
(``StoredEvaluation.runs_started`` and the records' cost). Errored attempts are counted
as they land, like money (an attempt in flight may still err), a resume's from its records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.policy import Pause, SamplingPolicy, Slot
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.stats.progress import Progress
from passk_tui.core.text.amounts import counted

#: The ``status_reason`` of an evaluation whose budget stopped it (stored, exported, printed).
BUDGET_SPENT = "budget spent"


class BudgetedPolicy:
    """``inner``'s attempts while the budget lasts; past it, only replays of keys in flight.

    ``spent`` turns true the first time an attempt is refused: the budget, not the
    policy, ended the evaluation.
    """

    def __init__(
        self,
        inner: SamplingPolicy,
        settings: Settings,
        *,
        runs_started: int = 0,
        cost_spent: Fraction = Fraction(0),
        errored: int = 0,
        replays: Iterable[Slot] = (),
    ) -> None:
        self.inner = inner
        self.budget_runs = settings.budget_runs
        self.budget_cost = settings.budget_cost
        self.budget_errors = settings.budget_errors
        #: Attempts errored so far, this session's and the stored ones.
        self.errored = errored
        self.price = settings.price
        #: Runs started so far, this session's and the stored ones.
        self.runs_started = runs_started
        #: Money spent so far (exact), on the attempts that landed.
        self.cost_spent = cost_spent
        #: Keys in flight when it last stopped: their Runs are counted already.
        self._replays = set(replays)
        #: Attempts (case, attempt number) handed out that have not landed or been dropped.
        self._open: set[tuple[int, int]] = set()
        self._spent = False

    def _exhausted(self) -> bool:
        if self.budget_runs is not None and self.runs_started >= self.budget_runs:
            return True
        return self._spent_as_landed()

    def _spent_as_landed(self) -> bool:
        """A budget counted as attempts land (money, errors) is spent."""
        if self.budget_errors is not None and self.errored >= self.budget_errors:
            return True
        return self.budget_cost is not None and self.cost_spent >= self.budget_cost

    def next(self) -> Slot | Pause:
        if self._spent and not self._replays:
            return Pause.DONE
        while True:
            slot = self.inner.next()
            if isinstance(slot, Pause):
                return slot
            if slot in self._replays:
                self._replays.discard(slot)
                self._open.add((slot.case_index, slot.attempt))
                return slot
            if self._exhausted():
                # Refused: the inner policy hears of it as of any attempt that never ran.
                self._spent = True
                self.inner.dropped(slot)
                if not self._replays:
                    return Pause.DONE
                continue  # past the budget, only the replays still to come may start
            self.runs_started += 1
            self._open.add((slot.case_index, slot.attempt))
            return slot

    def landed(self, record: AttemptRecord) -> None:
        self._open.discard((record.case_index, record.attempt))
        self.errored += record.outcome is Outcome.ERRORED
        if self.price is not None:
            self.cost_spent += self.price.cost(record.usage) or 0
        # The judge's Runs count too, when they land with their attempt (a Run budget may
        # then end over by the votes of the attempts in flight), and its money at its prices.
        self.runs_started += len(record.votes)
        self.cost_spent += sum((v.cost for v in record.votes if v.cost is not None), Fraction(0))
        # A simulated user's money too (its Runs are the conversation's, not counted as Runs).
        if record.transcript is not None and record.transcript.user_cost is not None:
            self.cost_spent += record.transcript.user_cost
        self.inner.landed(record)

    def dropped(self, slot: Slot) -> None:
        # Its Run may have been requested: it stays counted ("at most N Runs").
        self._open.discard((slot.case_index, slot.attempt))
        self.inner.dropped(slot)

    def planned(self, case_index: int) -> int:
        return self.inner.planned(case_index)

    @property
    def spent(self) -> bool:
        return self._spent

    def most_left(self) -> int:
        """The most attempts still to start: the inner policy's, bounded by the Runs left."""
        left = self.inner.most_left()
        if self._spent_as_landed():
            return min(left, len(self._replays))
        if self.budget_runs is not None:
            return min(left, max(0, self.budget_runs - self.runs_started) + len(self._replays))
        return left

    def runs_bound(self) -> int | None:
        """The most attempts still to finish under the Run budget: those handed out and not
        in yet, the Runs left, and the replays (their Runs are counted already); None
        without a Run budget. A cost budget gives no bound ahead: what an attempt costs
        is known only once it lands."""
        if self.budget_runs is None:
            return None
        return len(self._open) + max(0, self.budget_runs - self.runs_started) + len(self._replays)

    @property
    def stop_reasons(self) -> Mapping[int, StopReason] | None:
        """The inner policy's: an adaptive one's stop reasons; None for a fixed n."""
        return self.inner.stop_reasons


def group_budget_line(settings: Settings, members: int, each: str) -> str | None:
    """How a budget applies to evaluations run together (a ``--baseline`` pair, a matrix):
    each is its own evaluation with its own budget (a budget counts the Runs started by that
    evaluation), so together they may spend ``members`` times the figure given; ``each`` names
    one of them (``version``, ``agent``, ``target``). None without a budget."""
    spends = []
    if settings.budget_runs is not None:
        n = settings.budget_runs
        spends.append(f"--budget-runs {n} lets up to {members * n} Runs start ({n} per {each})")
    if settings.budget_cost is not None:
        usd = settings.budget_cost
        spends.append(f"--budget-cost {float(usd):g} up to {float(members * usd):g} USD")
    if not spends:
        return None
    return f"the budget holds for each {each} apart: {' and '.join(spends)}"


def budgeted(settings: Settings) -> bool:
    """Whether the settings set a budget."""
    return any(
        b is not None for b in (settings.budget_runs, settings.budget_cost, settings.budget_errors)
    )


def short_of_plan(progress: Progress, settings: Settings) -> list[int]:
    """The cases (indices) that got fewer attempts than planned: under ``--attempts``, or,
    adaptive, not yet stopped by their rule or the cap."""
    return [
        i
        for i, figures in enumerate(progress.all_figures())
        if figures.n < settings.attempts or (settings.adaptive and i not in progress.stop_reasons)
    ]


#: Cases named in the budget line; the rest are counted (the .json lists them all).
NAMED_SHORT = 10


def budget_line(progress: Progress, settings: Settings) -> str:
    """The stderr line of an evaluation its budget ended: which cases got fewer attempts."""
    short = short_of_plan(progress, settings)
    figures = progress.all_figures()
    planned = "" if settings.adaptive else f" of {settings.attempts}"  # adaptive: no fixed plan
    named = ", ".join(f"{figures[i].name} ({figures[i].n}{planned})" for i in short[:NAMED_SHORT])
    if len(short) > NAMED_SHORT:
        named += f" and {len(short) - NAMED_SHORT} more"
    what = f"{counted(len(short), 'case')} got fewer attempts than planned"
    return f"{BUDGET_SPENT}: {what}" + (f": {named}" if named else "")
