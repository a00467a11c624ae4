"""The pytest session's evaluation as its exports show it: each test read as its marker says.

The stored evaluation has one k and one gate (the History's reading of it); the tests of a
session may each have their own. Every export must say what pytest said, so each case
carries its own reading (``CaseReport.own``: its k, gate, level and verdict), and the
evaluation's verdicts are the tests' own: the JUnit is red exactly where pytest failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from passk_tui.core.errors import ExitCode
from passk_tui.core.reading.vocabulary import Reading
from passk_tui.core.text.figure_text import gate_text
from passk_tui.reports.report import Report, SessionGate, build_report
from passk_tui.store.models import StoredEvaluation


def session_report(stored: StoredEvaluation, own: Mapping[str, Reading]) -> Report:
    """``stored`` read for export, each test named in ``own`` by its own reading."""
    base = build_report(stored)
    cases = []
    for c in base.cases:
        terms = own.get(c.case.name)
        if terms is None:  # stored by an earlier session of the suite, not run in this one
            cases.append(c)
            continue
        verdict = terms.cases[0].verdict
        cases.append(replace(c, reading=replace(c.reading, verdict=verdict), own=terms))
    gated = [terms for terms in own.values() if terms.require is not None]
    requires = {terms.require for terms in gated}
    reading = replace(
        base.reading,
        cases=tuple(c.reading for c in cases),
        # One gate where the tests share it; the verdicts (and so the exit status) are theirs.
        require=requires.pop() if len(requires) == 1 else None,
        confident=any(terms.confident for terms in gated),
    )
    return replace(base, reading=reading, cases=tuple(cases), session=_session_gate(gated))


def _session_gate(gated: list[Reading]) -> SessionGate | None:
    """The suite's gate as pytest read it: each test's own, one word where they agree; the
    exit status pytest gives (1 for a failed or undecided test, not the CLI's 4)."""
    if not gated:
        return None
    requires = {gate_text(terms.require) for terms in gated if terms.require is not None}
    kinds = {terms.gate_kind for terms in gated}
    red = any(terms.exit_code != ExitCode.OK for terms in gated)
    return SessionGate(
        requires.pop() if len(requires) == 1 else "per test",
        kinds.pop() if len(kinds) == 1 else "per test",
        int(ExitCode.GATE_FAILED if red else ExitCode.OK),
    )
