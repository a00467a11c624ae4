"""One description of how far an evaluation got: the extent and its words, on every face."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from passk_tui.core.attempt import Outcome
from passk_tui.core.render.extent_text import (
    adaptive_summary,
    attempts_cell,
    attempts_text,
    not_run_text,
    standing_text,
    time_left_text,
)
from passk_tui.core.run.sampling import reading
from passk_tui.core.stats.extent import extent, progress_extent
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.stats.progress import Progress
from passk_tui.tui.app.app_exit import exit_messages
from passk_tui.tui.view import EvaluationView
from tests.support.records import record, settings_for

ADAPTIVE = settings_for(Path("c.toml"), attempts=3, k=2, max_attempts=40, require=Fraction(4, 5))


def _adaptive_progress() -> Progress:
    """Three cases: one decided pass at 6, one capped at 40, one still sampled at 5."""
    progress = Progress(["a", "b", "c"], 3, 2)
    progress.add(record(0, n) for n in range(1, 7))
    progress.add(record(1, n, Outcome.PASSED if n % 2 else Outcome.WRONG) for n in range(1, 41))
    progress.add(record(2, n) for n in range(1, 6))
    progress.mark(2, 6, 1)  # the sixth in flight
    progress.stop_reasons = {0: StopReason("decided pass", 6), 1: StopReason("capped", 40)}
    return progress


def test_a_fixed_n_is_counted_of_its_plan() -> None:
    progress = Progress(["a", "b"], 5, 2)
    progress.add(record(0, n) for n in range(1, 4))
    shown = progress_extent(progress, settings_for(Path("c.toml"), attempts=5))
    assert (attempts_text(shown), attempts_cell(shown)) == ("3 of 10 attempts", "3/10")
    assert standing_text(shown) == "" and not shown.growing
    assert not_run_text(shown) == "cancelled: 7 attempts not run"
    assert time_left_text(shown, 1.0) == "~0:07 left"


def test_an_adaptive_run_is_counted_of_its_cap_and_its_cases_by_their_stop_reasons() -> None:
    progress = _adaptive_progress()
    shown = progress_extent(progress, ADAPTIVE)
    assert (shown.planned, shown.known, shown.most) == (9, 52, 120)
    assert attempts_text(shown) == "51 of at most 120 attempts (3 to 40 per case)"
    assert attempts_cell(shown) == "51/≤120"
    assert standing_text(shown) == "1 decided pass, 1 capped undecided, 1 still sampled"
    assert adaptive_summary(shown) == (
        "adaptive: 51 attempts over 3 cases; 1 decided pass, 1 capped undecided, 1 still sampled"
    )
    # The total grows as the policy hands attempts out: the time left is a bound.
    assert time_left_text(shown, 10.0) == "at most ~0:06 left"
    assert not_run_text(shown) == "cancelled: 1 case still sampled, up to 69 attempts not run"


def test_the_gate_counts_are_the_evaluations_own_reading() -> None:
    progress = _adaptive_progress()
    own = reading(progress.all_figures(), ADAPTIVE)
    shown = progress_extent(progress, ADAPTIVE, own)
    assert own.confident  # adaptive: the confident gate, never the point one
    assert (shown.failing, shown.undecided) == (len(own.failing), len(own.undecided))
    assert extent(settings_for(Path("c.toml")), 1, 0, 3).failing is None  # no gate


def test_quitting_the_app_mid_run_says_how_to_resume() -> None:
    view = EvaluationView("ev_x", ADAPTIVE, _adaptive_progress(), stored_status="running")
    assert exit_messages(None, view) == [
        "passk-tui: cancelled: 1 case still sampled, up to 69 attempts not run",
        "passk-tui: what finished is stored; to continue: passk-tui --resume ev_x",
    ]
