"""The JUnit XML export: a testcase per case, red exactly when the process's exit status is.

A CI reading the file must agree with the exit status, so a testcase carries a
``<failure>`` or ``<error>`` only when the gate says so: ``fail`` (point or
confident gate) or ``undecided`` (confident gate, exit 4). Which of the two
follows the case's attempts: ``<error>`` when more of its non-passing attempts
errored (the platform's, a provider's or a tool's fault) than were wrong,
``<failure>`` otherwise. Without ``--require`` nothing is red, as the exit
status is 0; every testcase still carries its figures and intervals as
properties and its first failing answer or error in ``system-out``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from passk_tui.core.reading.vocabulary import FigureIntervals, Interval, Reading
from passk_tui.core.text.decimals import fixed
from passk_tui.core.text.figure_text import (
    gate_text,
    interval_text,
    level_text,
    two_decimals,
    yes_no,
)
from passk_tui.reports.report import CaseReport, Report, failure_text, iso_time, read_as

#: Characters XML 1.0 cannot hold at all (even escaped): control characters, lone surrogates.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(text: str) -> str:
    """``text`` with what XML cannot carry written as ``\\xNN`` / ``\\uNNNN`` escapes."""
    return _NOT_XML.sub(lambda m: ascii(m.group())[1:-1], text)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    element = ET.SubElement(
        parent, tag, {name: _xml_safe(value) for name, value in attributes.items()}
    )
    if text is not None:
        element.text = _xml_safe(text)
    return element


def _interval(interval: Interval | None) -> str:
    return interval_text(interval) if interval else "-"


def _case_properties(c: CaseReport, report: Report) -> list[tuple[str, str]]:
    terms, case = read_as(c, report)
    f, k, level = case.figures, terms.k, level_text(terms.level)
    intervals: FigureIntervals = case.intervals
    own = [] if c.own is None else [("k", str(k)), ("require", _require(terms))]
    return [
        *own,
        ("attempts", str(f.n)),
        ("passed", str(f.passed)),
        ("wrong", str(f.wrong)),
        ("errored", str(f.errored)),
        ("pass@1", two_decimals(f.pass_at_1)),
        (f"pass@{k}", two_decimals(f.pass_at_k)),
        (f"pass^{k}", two_decimals(f.pass_hat_k)),
        ("all passed", yes_no(f.all_passed)),
        (f"pass@1 {level} CI", _interval(intervals.pass_at_1)),
        (f"pass@{k} {level} CI", _interval(intervals.pass_at_k)),
        (f"pass^{k} {level} CI", _interval(intervals.pass_hat_k)),
        ("gate", case.verdict or "-"),
    ]


def _require(reading: Reading) -> str:
    return "" if reading.require is None else gate_text(reading.require)


def _problem(c: CaseReport, report: Report) -> tuple[str, str, str] | None:
    """(tag, type, message) when the gate makes this case red; None otherwise."""
    reading, case = read_as(c, report)
    verdict = case.verdict
    if reading.require is None or verdict == "pass" or verdict is None:
        return None
    if verdict == "undecided" and not reading.confident:
        return None
    f, k, shown = case.figures, reading.k, gate_text(reading.require)
    counts = f"{f.passed} passed, {f.wrong} wrong, {f.errored} errored of {f.n} attempts"
    if reading.confident:
        ci = f"pass@{k} {level_text(reading.level)} CI {_interval(case.intervals.pass_at_k)}"
        if verdict == "fail":
            message = f"{ci} is below --require {shown}: {counts}"
        else:
            message = f"{ci} includes --require {shown} (undecided): {counts}"
    else:
        message = f"pass@{k} {two_decimals(f.pass_at_k)} is below --require {shown}: {counts}"
    tag = "error" if f.errored > f.wrong else "failure"
    kind = "below-gate" if verdict == "fail" else "undecided"
    return tag, kind, message


def render_junit(report: Report) -> str:
    """JUnit XML: a testcase per case with its figures; red where the gate is (see the module)."""
    stored, reading = report.stored, report.reading
    s = stored.settings
    k = reading.k
    total_time = fixed(report.duration, 3)
    suites = ET.Element("testsuites", name="passk-tui", time=total_time)
    suite = _sub(
        suites,
        "testsuite",
        name=f"{s.agent} version {s.version}",
        timestamp=iso_time(stored.created) or "",
        time=total_time,
    )
    properties = _sub(suite, "properties")
    for name, value in (
        ("evaluation", stored.id),
        ("agent", s.agent),
        ("version", str(s.version)),
        ("attempts", str(s.attempts)),
        ("k", str(k)),
        ("require", report.session.require if report.session else _require(reading)),
        ("gate", report.gate_kind),
        ("exit status", str(report.exit_status)),
        ("confidence", f"{reading.level:g}"),
        ("interval method", reading.method.name),
        ("n chosen", report.intervals.n_chosen),
        ("status", stored.status),
    ):
        _sub(properties, "property", name=name, value=value)
    counted = {"failure": 0, "error": 0, "skipped": 0}
    for c in report.cases:
        f = c.figures
        case = _sub(
            suite,
            "testcase",
            classname=f"passk.{s.agent}.v{s.version}",
            name=f.name,
            time=fixed(c.duration, 3),
        )
        case_properties = _sub(case, "properties")
        for name, value in _case_properties(c, report):
            _sub(case_properties, "property", name=name, value=value)
        problem = _problem(c, report)
        first = failure_text(c.first_failure) if c.first_failure else "none"
        if f.n == 0:
            counted["skipped"] += 1
            _sub(case, "skipped", message="no attempt recorded")
        elif problem is not None:
            tag, kind, message = problem
            counted[tag] += 1
            _sub(case, tag, first, message=message, type=kind)
        shown = (
            f"pass@1 {two_decimals(f.pass_at_1)}, pass@{k} {two_decimals(f.pass_at_k)}, "
            f"pass^{k} {two_decimals(f.pass_hat_k)}; {f.passed} passed, {f.wrong} wrong, "
            f"{f.errored} errored of {f.n} attempts; first failure: {first}"
        )
        _sub(case, "system-out", shown)
    for element in (suites, suite):
        element.set("tests", str(len(report.cases)))
        element.set("failures", str(counted["failure"]))
        element.set("errors", str(counted["error"]))
        element.set("skipped", str(counted["skipped"]))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
