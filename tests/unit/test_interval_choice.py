"""One evaluation, one interval method: exact at an n fixed in advance and reached, anytime-valid
once n was chosen by looking; stored with the evaluation; every shown interval rounded outward."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import binomtest

from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import load_cases
from passk_tui.core.run.sampling import reading
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.interval_choice import (
    ADAPTIVE,
    EXTENDED,
    FIXED_AND_REACHED,
    SHORT_OF_PLAN,
    evaluation_choice,
    interval_choice,
    n_chosen_by_looking,
)
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON, Interval
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE
from passk_tui.core.text.figure_text import interval_text, outward_ends
from passk_tui.store import Store
from tests.support.judging import scipy_running
from tests.support.old_stores import store_at_schema
from tests.support.records import CASES, record, settings_for

FIXED = Settings("a", 1, "c.toml", attempts=5, k=3, require=Fraction(4, 5), confidence=0.95)


def test_a_fixed_n_reached_as_planned_reads_the_exact_interval() -> None:
    choice = interval_choice(FIXED, reached=True)
    assert (choice.method, choice.why, choice.n_chosen) == (
        CLOPPER_PEARSON,
        FIXED_AND_REACHED,
        "in advance",
    )
    assert not choice.by_looking and not n_chosen_by_looking(FIXED)


@pytest.mark.parametrize(
    ("settings", "reached", "why"),
    [
        (FIXED, False, SHORT_OF_PLAN),  # live, cancelled, interrupted: it may stop on any look
        (replace(FIXED, max_attempts=40), True, ADAPTIVE),
        (replace(FIXED, extended=True), True, EXTENDED),  # reached its new n: still by looking
        (replace(FIXED, extended=True, max_attempts=40), False, EXTENDED),
    ],
)
def test_n_chosen_by_looking_reads_the_confidence_sequence(
    settings: Settings, reached: bool, why: str
) -> None:
    choice = interval_choice(settings, reached)
    assert choice.method is CONFIDENCE_SEQUENCE and choice.why == why
    assert choice.by_looking and choice.n_chosen == "by looking"
    assert choice.line(0.95) == f"intervals: 95% anytime-valid (beta-binomial mixture): {why}"


def test_the_reading_of_a_case_short_of_its_plan_is_the_running_intersection() -> None:
    """Every case of the evaluation is read by its method: one unfinished case makes it all
    anytime-valid, each case's interval the running intersection over its outcomes (scipy's)."""
    done = CaseFigures("done", 5, 5, 0, 0, 3, 5, b"\x01" * 5)
    short = CaseFigures("short", 3, 2, 1, 0, 3, 5, b"\x01\x00\x01")
    assert evaluation_choice(FIXED, [done]).method is CLOPPER_PEARSON
    assert evaluation_choice(FIXED, [done, short]).method is CONFIDENCE_SEQUENCE
    read = reading([done, short], FIXED)
    assert read.method is CONFIDENCE_SEQUENCE
    for case, f in zip(read.cases, (done, short), strict=True):
        low, high = scipy_running(f.order or b"", 0.95)
        assert case.intervals.pass_at_1 == Interval(pytest.approx(low), pytest.approx(high))
    # The exact one, once reached, is scipy's Clopper-Pearson.
    exact = reading([done], FIXED).cases[0].intervals.pass_at_1
    ci = binomtest(5, 5).proportion_ci(0.95, method="exact")
    assert exact == Interval(pytest.approx(ci.low, abs=1e-9), pytest.approx(ci.high, abs=1e-9))


def test_shown_ends_round_outward_around_scipys_exact_interval() -> None:
    """L down and U up at two decimals, so the shown interval contains the exact one (and is
    no more than a hundredth wider at each end); rounding to nearest does not."""
    rng = random.Random(7)
    narrower_if_nearest = 0
    for _ in range(300):
        n = rng.randint(1, 200)
        c = rng.randint(0, n)
        ci = binomtest(c, n).proportion_ci(0.95, method="exact")
        low, high = outward_ends(CLOPPER_PEARSON.rate(c, n, 0.95))
        assert Decimal(low) == Decimal(ci.low).quantize(Decimal("0.01"), ROUND_FLOOR)
        assert Decimal(high) == Decimal(ci.high).quantize(Decimal("0.01"), ROUND_CEILING)
        assert float(low) <= ci.low and float(high) >= ci.high
        assert interval_text(CLOPPER_PEARSON.rate(c, n, 0.95)) == f"{low}-{high}"
        narrower_if_nearest += round(ci.low, 2) > ci.low or round(ci.high, 2) < ci.high
    assert narrower_if_nearest > 100
    assert interval_text(Interval(0.0, 1.0)) == "0.00-1.00"
    assert interval_text(Interval(0.374, 0.996)) == "0.37-1.00"


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    return path


def test_extended_is_stored_and_an_older_store_reads_fixed_in_advance(
    tmp_path: Path, cases_file: Path
) -> None:
    old = tmp_path / "old.db"
    with store_at_schema(old, 8) as db:
        db.execute(
            "INSERT INTO evaluations (id, created, status, agent, version, attempts, k,"
            " completion_only, concurrency, timeout, cases_path, cases_sha256, case_count)"
            " VALUES ('ev_old', 1.0, 'done', 'demo', 1, 1, 1, 0, 4, 300, ?, 'x', 1)",
            (str(cases_file),),
        )
        db.execute("INSERT INTO cases VALUES ('ev_old', 0, 'one', '\"one\"', NULL, NULL, NULL)")
    with Store.open(old) as store:
        stored = store.load("ev_old")
        assert stored.settings.extended is False  # what was known of it: read as before
        settings = replace(settings_for(cases_file, attempts=2, k=1), extended=True)
        store.create_evaluation("ev_new", settings, load_cases(cases_file), "h")
        store.write("ev_new", [record(0, 1), record(1, 1)])
        assert store.load("ev_new").settings.extended is True
        store.reopen("ev_new", replace(settings, extended=False))
        assert store.load("ev_new").settings.extended is False
    with sqlite3.connect(old) as db:
        assert "extended" in {row[1] for row in db.execute("PRAGMA table_info(evaluations)")}
