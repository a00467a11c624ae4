"""Adaptive evaluations in the store and the exports: schema 4, stop reasons, each case's own n."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from passk_tui.core.attempt import Outcome
from passk_tui.core.run.cases import load_cases
from passk_tui.core.stats.gating.gate import read
from passk_tui.core.stats.gating.stopping import StopReason
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE
from passk_tui.reports.export import render_csv, render_json, render_md
from passk_tui.reports.report import build_report
from passk_tui.reports.report_html import render_report
from passk_tui.store import Store
from passk_tui.store.schema import SCHEMA_VERSION
from tests.support.judging import scipy_running
from tests.support.old_stores import store_at_schema
from tests.support.records import CASES, record, settings_for


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    return path


def test_an_older_store_migrates_keeping_everything(tmp_path: Path, cases_file) -> None:
    path = tmp_path / "old.db"
    with store_at_schema(path, 2):
        pass
    Store.open(path).close()  # opened at schema 2, migrated
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {row[1] for row in db.execute("PRAGMA table_info(evaluations)")}
        assert {"max_attempts", "precision", "confidence"} <= columns
        assert "stop_reason" in {row[1] for row in db.execute("PRAGMA table_info(cases)")}

    old = tmp_path / "older.db"
    with store_at_schema(old, 2) as db:
        db.execute(
            "INSERT INTO evaluations (id, created, status, agent, version, attempts, k,"
            " completion_only, concurrency, timeout, cases_path, cases_sha256, case_count)"
            " VALUES ('ev_old', 1.0, 'done', 'demo', 1, 3, 2, 0, 4, 300, ?, 'x', 2)",
            (str(cases_file),),
        )
        db.execute(
            "INSERT INTO cases VALUES ('ev_old', 0, 'one', '\"one\"', NULL),"
            " ('ev_old', 1, 'two', '\"two\"', NULL)"
        )
    with Store.open(old) as store:
        stored = store.load("ev_old")
    assert stored.settings.max_attempts is None and stored.settings.confidence is None
    assert not stored.settings.adaptive and stored.stop_reasons == {}
    assert [c.name for c in stored.cases] == ["one", "two"]


def adaptive_store(tmp_path: Path, cases_file: Path) -> Store:
    """Case one: 6 of 6 (decided pass at 6); case two: 3 of 9 then capped at 9."""
    settings = settings_for(
        cases_file, attempts=3, k=2, max_attempts=9, require=Fraction(4, 5), confidence=0.9
    )
    store = Store.open(tmp_path / "s.db")
    store.create_evaluation("ev_a", settings, load_cases(cases_file), "abc")
    records = [record(0, a) for a in range(1, 7)]
    records += [record(1, a, Outcome.PASSED if a % 3 == 0 else Outcome.WRONG) for a in range(1, 10)]
    store.write("ev_a", records)
    store.keep_stop_reasons("ev_a", {0: "decided pass at 6", 1: "capped at 9 undecided"})
    return store


def test_settings_and_stop_reasons_round_trip(tmp_path: Path, cases_file: Path) -> None:
    with adaptive_store(tmp_path, cases_file) as store:
        stored = store.load("ev_a")
        assert stored.settings.max_attempts == 9 and stored.settings.confidence == 0.9
        assert stored.stop_reasons == {0: StopReason("decided pass", 6), 1: StopReason("capped", 9)}
        store.keep_stop_reasons("ev_a", {1: None})  # sampled again by an extension
        assert store.load("ev_a").stop_reasons == {0: StopReason("decided pass", 6)}


def test_every_export_shows_each_cases_own_n_and_reason_with_the_anytime_valid_method(
    tmp_path: Path, cases_file: Path
) -> None:
    with adaptive_store(tmp_path, cases_file) as store:
        report = build_report(store.load("ev_a"))
    assert report.reading.method is CONFIDENCE_SEQUENCE and report.reading.level == 0.9
    # Each case's interval is the running intersection over its attempts in order (scipy's).
    expected = [scipy_running(b"\x01" * 6, 0.9), scipy_running(bytes([0, 0, 1] * 3), 0.9)]
    assert expected[1][1] < CONFIDENCE_SEQUENCE.rate(3, 9, 0.9).high - 0.01  # not the one at 9

    document = json.loads(render_json(report))
    assert document["evaluation"]["max_attempts"] == 9
    assert document["intervals"]["method"] == "beta-binomial-mixture"
    one, two = document["cases"]
    assert (one["figures"]["attempts"], two["figures"]["attempts"]) == (6, 9)
    assert two["figures"]["exact"]["pass_at_1"] == "1/3"
    assert two["figures"]["exact"]["pass_at_k"] == str(1 - Fraction(15, 36))  # 1 - C(6,2)/C(9,2)
    assert [one["stop_reason"], two["stop_reason"]] == [
        "decided pass at 6",
        "capped at 9 undecided",
    ]
    for case, (low, high) in zip((one, two), expected, strict=True):
        shown = case["intervals"]["pass_at_1"]
        assert (shown["low"], shown["high"]) == (pytest.approx(low), pytest.approx(high))

    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    assert [(r["attempts"], r["passed"], r["pass@1"]) for r in rows] == [
        ("6", "6", "1.00"), ("9", "3", "0.33"),
    ]  # fmt: skip
    assert [r["stop_reason"] for r in rows] == ["decided pass at 6", "capped at 9 undecided"]
    assert {r["method"] for r in rows} == {"beta-binomial-mixture"}

    md = render_md(report)
    assert "| one | 6/6 |" in md and "| two | 3/9 |" in md
    assert "decided pass at 6 |" in md and "capped at 9 undecided |" in md
    assert "anytime-valid" in md and "15 attempts (adaptive: 3 to 9 per case)" in md

    html = render_report(report)
    assert "anytime-valid (beta-binomial mixture) at 90%" in html
    assert '<td class="stopped">capped at 9 undecided</td>' in html
    assert '<td class="num passed">3/9</td>' in html


def test_bad_adaptive_flags_are_exit_2_in_one_line(capsys) -> None:
    from passk_tui.cli.flags import parse
    from passk_tui.cli.run import run_headless

    for flags, message in (
        (["--precision", "0.1"], "--precision needs --max-attempts"),
        (["--max-attempts", "9", "--precision", "0.1", "--require", "0.8"], "give one of them"),
        (["--max-attempts", "9", "--precision", "1"], "--precision: must be strictly between"),
        (["--max-attempts", "2"], "--max-attempts: must be at least the attempts (5)"),
        (["--max-attempts", "x"], "--max-attempts: must be a whole number"),
    ):
        assert run_headless(parse(["--demo", *flags]), {}) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def test_history_counts_an_adaptive_evaluation_by_its_cap_and_its_own_intervals(
    tmp_path: Path, cases_file: Path
) -> None:
    """1 pass of 9 is a decided fail by Clopper-Pearson, undecided by the anytime-valid one at
    0.95; History reads it as Results does, at the evaluation's own level (0.9)."""
    with adaptive_store(tmp_path, cases_file) as store:
        settings = store.load("ev_a").settings
        store.create_evaluation("ev_h", settings, load_cases(cases_file), "abc", created=9e9)
        store.write(
            "ev_h",
            [record(1, a, Outcome.PASSED if a == 1 else Outcome.WRONG) for a in range(1, 10)],
        )
        summary = store.list_evaluations()[0]
        figures = store.load("ev_h").figures()
    assert (summary.id, summary.recorded, summary.extent.most, summary.max_attempts) == (
        "ev_h",
        9,
        18,
        9,
    )
    assert read(figures, Fraction(4, 5), 0.95).decided == 1  # Clopper-Pearson
    assert read(figures, Fraction(4, 5), 0.95, CONFIDENCE_SEQUENCE).decided == 0
    assert summary.decided == read(figures, Fraction(4, 5), 0.9, CONFIDENCE_SEQUENCE).decided
    assert summary.under_gate == len(
        read(figures, Fraction(4, 5), 0.9, CONFIDENCE_SEQUENCE).failing
    )


def test_history_reads_an_adaptive_case_by_its_attempts_in_order(
    tmp_path: Path, cases_file: Path
) -> None:
    """6 passes then a failure: decided pass by the running intersection (what the run's own
    table said), undecided by the interval at 6 of 7 alone; History counts it decided."""
    settings = settings_for(cases_file, attempts=5, k=3, max_attempts=40, require=Fraction(4, 5))
    with Store.open(tmp_path / "s.db") as store:
        store.create_evaluation("ev_o", settings, load_cases(cases_file), "abc")
        store.write(
            "ev_o", [record(0, a, Outcome.PASSED if a <= 6 else Outcome.WRONG) for a in range(1, 8)]
        )
        summary = store.list_evaluations()[0]
        figures = store.load("ev_o").figures()
    assert figures[0].order == b"\x01" * 6 + b"\x00"
    assert read(figures, Fraction(4, 5), 0.95, CONFIDENCE_SEQUENCE).decided == 1
    counts_only = [replace(f, order=None) for f in figures]
    assert read(counts_only, Fraction(4, 5), 0.95, CONFIDENCE_SEQUENCE).decided == 0
    assert summary.decided == 1
