"""A pytest session's exports at the suite level: what pytest said of its marked tests.

The tests of a session may each have their own gate; the suite's fields must still say
what the tests' gates decided, and the exit status pytest gave (1 for any failed test)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from fractions import Fraction

from passk_tui.api.pytest_report import session_report
from passk_tui.core.attempt import Outcome
from passk_tui.core.run.sampling import reading
from passk_tui.core.stats.gating.gate import Reading
from passk_tui.reports.export import render_json, render_md
from passk_tui.reports.junit import render_junit
from passk_tui.store import StoredEvaluation
from tests.support.reports import evaluation


def _session(
    requires: list[tuple[Fraction, float | None]],
) -> tuple[StoredEvaluation, dict[str, Reading]]:
    """Two tests of 10 attempts: case-0 passes every one, case-1 half; each with its own gate."""
    stored = evaluation(2, 10, lambda c, a: Outcome.PASSED if c == 0 or a % 2 else Outcome.WRONG)
    stored = replace(stored, settings=replace(stored.settings, require=None, k=1))
    own = {}
    for case, (require, confidence) in zip(stored.cases, requires, strict=True):
        one = replace(
            stored, cases=[case], records=[r for r in stored.records if r.case == case.name]
        )
        one = replace(one, records=[replace(r, case_index=0) for r in one.records])
        settings = replace(stored.settings, require=require, confidence=confidence)
        own[case.name] = reading(one.figures(), settings)
    return stored, own


def _suite(
    stored: StoredEvaluation, own: dict[str, Reading]
) -> tuple[dict[str, str], dict[str, object]]:
    report = session_report(stored, own)
    suite = ET.fromstring(render_junit(report)).find("testsuite")
    assert suite is not None
    properties = {p.get("name") or "": p.get("value") or "" for p in suite.find("properties") or ()}
    return properties, json.loads(render_json(report))["gate"]


def test_tests_with_different_gates_still_give_the_suite_a_gate() -> None:
    stored, own = _session([(Fraction(8, 10), None), (Fraction(9, 10), None)])
    properties, gate = _suite(stored, own)
    assert (properties["require"], properties["gate"], properties["exit status"]) == (
        "per test",
        "point",
        "1",
    )
    assert gate is not None
    assert (gate["require"], gate["kind"], gate["held"], gate["exit_status"]) == (
        "per test",
        "point",
        False,
        1,
    )
    assert gate["under"] == ["case-1"]


def test_an_undecided_test_gives_the_suite_pytests_exit_status() -> None:
    # case-1's 5/10 against 0.5 at 95%: its interval includes 0.5, so pytest fails it as undecided.
    stored, own = _session([(Fraction(5, 10), 0.95), (Fraction(5, 10), 0.95)])
    properties, gate = _suite(stored, own)
    assert (properties["gate"], properties["exit status"]) == ("confident", "1")
    assert gate is not None and (gate["held"], gate["exit_status"]) == (False, 1)
    assert gate["undecided"] == ["case-1"]


def test_the_md_of_tests_with_different_attempts_counts_what_ran_of_what_each_planned() -> None:
    # case-0 planned 10 attempts, case-1 only 4: the stored settings keep the smaller (4).
    stored, own = _session([(Fraction(8, 10), None), (Fraction(9, 10), None)])
    stored = replace(stored, settings=replace(stored.settings, attempts=4))
    short = [r for r in stored.records if r.case_index == 0 or r.attempt <= 4]
    stored = replace(stored, records=short)
    one = replace(
        stored,
        cases=stored.cases[1:],
        records=[replace(r, case_index=0) for r in short if r.case_index == 1],
    )
    own["case-1"] = reading(one.figures(), replace(one.settings, require=Fraction(9, 10)))
    md = render_md(session_report(stored, own))
    assert "14/8 attempts" not in md  # before: 14 recorded "of" 2 x 4
    assert "14 attempts, each test at its own k" in md
