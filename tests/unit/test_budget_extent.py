"""A Run budget bounds the extent: the lines count to what it allows and time what is left of it."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from passk_tui.core.inputs.price import Price
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.extent_text import (
    attempts_cell,
    budget_label,
    not_run_text,
    time_left_text,
)
from passk_tui.core.run.budget import BudgetedPolicy
from passk_tui.core.run.policy import Pause, Slot
from passk_tui.core.run.sampling import sampling_policy
from passk_tui.core.stats.extent import Extent, progress_extent
from passk_tui.core.stats.progress import Cell, Progress
from tests.support.records import record, settings_for


def _settings(**kw: object) -> Settings:
    return settings_for(Path("c.toml"), **{"attempts": 6, **kw})


def _budgeted(settings: Settings, cases: int, **resume: Any) -> BudgetedPolicy:
    policy = sampling_policy(settings, cases, **resume)
    assert isinstance(policy, BudgetedPolicy)
    return policy


def _handed_out(policy: BudgetedPolicy, count: int) -> list[Slot]:
    slots = [policy.next() for _ in range(count)]
    return [slot for slot in slots if isinstance(slot, Slot)]


def _live(settings: Settings, cases: int, hand_out: int, land: int, **resume: Any) -> Extent:
    """The extent after the policy handed out ``hand_out`` attempts and ``land`` of them landed,
    its Progress asking the policy's bound as the engine has it do."""
    policy = _budgeted(settings, cases, **resume)
    progress = Progress([f"c{i}" for i in range(cases)], settings.attempts, settings.k)
    progress.add(resume.get("records", ()))
    progress.runs_bound = policy.runs_bound
    slots = _handed_out(policy, hand_out)
    assert len(slots) == hand_out
    for slot in slots:
        progress.mark(slot.case_index, slot.attempt, Cell.RUNNING)
    landed = [record(s.case_index, s.attempt) for s in slots[:land]]
    progress.add(landed)
    for one in landed:
        policy.landed(one)
    return progress_extent(progress, settings)


def test_a_fixed_n_counts_to_the_run_budget_and_times_what_is_left_of_it() -> None:
    shown = _live(_settings(budget_runs=14), 5, hand_out=12, land=10)
    # 10 finished, 2 open, 2 Runs left: at most 14 of the 30 planned.
    assert (shown.known, shown.budget_most, shown.total) == (30, 14, 14)
    assert attempts_cell(shown) + " attempts" + budget_label(shown) == (
        "10/≤14 attempts (Run budget)"
    )
    assert time_left_text(shown, 2.0) == "~0:02 left"
    assert not_run_text(shown) == "cancelled: 4 attempts not run"


def test_a_run_budget_above_the_plan_changes_nothing() -> None:
    shown = _live(_settings(budget_runs=100), 5, hand_out=12, land=10)
    assert (attempts_cell(shown), budget_label(shown)) == ("10/30", "")
    assert time_left_text(shown, 2.0) == "~0:10 left"


def test_an_adaptive_run_counts_to_the_budget_below_its_cap_and_its_time_left_is_a_bound() -> None:
    adaptive = _settings(attempts=3, max_attempts=40, require=Fraction(4, 5), budget_runs=20)
    shown = _live(adaptive, 3, hand_out=9, land=6)
    assert (shown.most, shown.budget_most, shown.total) == (120, 20, 20)
    assert shown.growing and attempts_cell(shown) == "6/≤20" and budget_label(shown)
    assert time_left_text(shown, 7.0) == "at most ~0:02 left"
    unbounded = _live(replace(adaptive, budget_runs=500), 3, hand_out=9, land=6)
    assert (attempts_cell(unbounded), budget_label(unbounded)) == ("6/≤120", "")


def test_a_resume_counts_the_runs_the_store_says_were_started() -> None:
    done = [record(i, n) for i in range(2) for n in range(1, 4)]  # 6 records
    replays = [Slot(0, 4)]
    settings = _settings(budget_runs=10)
    # Stored: 9 Runs started (6 finished, 1 in flight to replay, 2 lost): 1 Run left.
    shown = _live(settings, 2, hand_out=0, land=0, records=done, in_flight=replays, runs_started=9)
    assert (shown.finished, shown.budget_most) == (6, 8)  # the replay and the one Run left
    assert attempts_cell(shown) == "6/≤8"
    later = _live(settings, 2, hand_out=2, land=2, records=done, in_flight=replays, runs_started=9)
    assert (later.finished, later.budget_most) == (8, 8)
    spent = _budgeted(settings, 2, records=done, in_flight=replays, runs_started=9)
    assert len(_handed_out(spent, 2)) == 2 and spent.next() is Pause.DONE  # the bound was exact


def test_a_cost_budget_gives_no_bound_ahead() -> None:
    price = Price(Fraction(15, 100), Fraction(6, 10))
    shown = _live(_settings(price=price, budget_cost=Fraction(1, 10**6)), 5, hand_out=4, land=2)
    assert shown.budget_most is None and not shown.budget_bound
    assert (attempts_cell(shown), budget_label(shown)) == ("2/30", "")


def test_a_dropped_attempt_spent_its_run_so_the_bound_falls() -> None:
    policy = _budgeted(_settings(budget_runs=14), 5)
    slots = _handed_out(policy, 3)
    assert policy.runs_bound() == 14
    policy.dropped(slots[0])
    policy.dropped(slots[0])  # told twice, counted once
    assert policy.runs_bound() == 13
