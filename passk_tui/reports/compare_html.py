"""The .html export of a comparison: both versions per case side by side, regressions first.

The same treatment as one evaluation's report (store/report_html.py), on the same
frame (store/html_page.py): one self-contained file, no script, no fetch. It holds
the count line and the notes (a regression that is mostly errored points at the
platform), the suite line (all cases at once, stratified by case), the table with
both versions' passes, errored attempts and attempts grids, the change, the
Holm-adjusted p (the raw one under it) and the verdict; the
cases in only one version apart; the settings of both (never the key); and per case
both versions' attempts in a collapsed ``<details>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from passk_tui.core.inputs.agent_definition import describe, outside_verdict
from passk_tui.core.reading.vocabulary import CaseComparison, CaseFigures, ChangeVerdict
from passk_tui.core.render.compare_text import count_line, notes, p_text, signed, suite_line
from passk_tui.core.text.figure_text import interval_text, level_text
from passk_tui.reports.html_page import (
    attempts_grid,
    blocks,
    esc,
    input_and_check,
    interval_bar,
    legend,
    page,
)
from passk_tui.reports.json_text import compact_json
from passk_tui.reports.report import iso_time
from passk_tui.reports.report_attempts import ATTEMPTS_NOTE, CASE_REM, attempts_list
from passk_tui.store.comparison import ComparedEvaluations
from passk_tui.store.models import StoredEvaluation

#: The table's order: what got worse first, then what got better, then the rest.
ORDER = {ChangeVerdict.REGRESSED: 0, ChangeVerdict.IMPROVED: 1, ChangeVerdict.UNCLEAR: 2}
#: A settings row whose values differ between the two (other than the rows each has its own).
DIFFERS = ' class="differs"'
OWN = frozenset({"evaluation", "status", "started", "finished"})


class _Side:
    """One evaluation's cases, cells and attempts by case name, as the rows read them."""

    def __init__(self, stored: StoredEvaluation) -> None:
        progress = stored.progress()
        self.stored = stored
        self.cases = {c.name: c for c in stored.cases}
        self.cells = {c.name: bytes(progress.cells[i]) for i, c in enumerate(stored.cases)}
        self.records = {
            c.name: sorted(progress.records[i], key=lambda r: r.attempt)
            for i, c in enumerate(stored.cases)
        }

    @property
    def decided_by(self) -> str | None:
        """Who decided its attempts when another tool did (an import); None for a run of ours."""
        return outside_verdict(self.stored.definition)

    @property
    def label(self) -> str:
        return f"version {self.stored.settings.version}"


def ordered(cases: Sequence[CaseComparison]) -> list[tuple[int, CaseComparison]]:
    """The compared cases with their index in A's order, regressions first, then improvements."""
    return sorted(enumerate(cases), key=lambda pair: ORDER[pair[1].verdict])


def render_html(compared: ComparedEvaluations) -> str:
    """The whole comparison as one HTML document."""
    comparison = compared.comparison
    a, b = _Side(compared.baseline), _Side(compared.candidate)
    level = float(comparison.confidence)
    rows = ordered(comparison.cases)
    agents = dict.fromkeys((a.stored.settings.agent, b.stored.settings.agent))
    title = f"passk-tui compare: {' / '.join(agents)} {a.label} → {b.label}"
    body = "\n".join(
        [
            f"<header><h1>{esc(title)}</h1>{_subtitle(a, b)}</header>",
            _counts(compared),
            '<h2 id="results">Per case</h2>',
            _table(rows, a, b, level),
            _only(compared),
            "<h2>Settings</h2>",
            _settings(a.stored, b.stored),
            '<h2 id="attempts">Attempts per case</h2>',
            f'<p class="note">Both versions, regressions first. {ATTEMPTS_NOTE}</p>',
            blocks([_case_attempts(i, c, a, b) for i, c in rows], CASE_REM),
        ]
    )
    return page(title, body)


def _subtitle(a: _Side, b: _Side) -> str:
    parts = [
        f"A (baseline) {esc(a.label)}: evaluation <code>{esc(a.stored.id)}</code> "
        f"{esc(a.stored.status)}",
        f"B (candidate) {esc(b.label)}: evaluation <code>{esc(b.stored.id)}</code> "
        f"{esc(b.stored.status)}",
    ]
    return f'<p class="subtitle">{" · ".join(parts)}</p>'


def _counts(compared: ComparedEvaluations) -> str:
    """The count line as the verdict at the top, then the notes and the warnings."""
    comparison = compared.comparison
    kind = "fail" if comparison.fails_on_regression else "pass" if comparison.cases else "none"
    method = (
        f"Per case: {comparison.method} ({len(comparison.cases):,} compared); a verdict where "
        f"the adjusted p is below {float(comparison.alpha):g} "
        f"(confidence {level_text(float(comparison.confidence))}). "
        f"The suite: {comparison.suite.method}."
    )
    said = [*notes(comparison), *compared.cost_lines(), *compared.warnings()]
    items = "".join(f"<li>{esc(line)}</li>" for line in said)
    listed = f'<ul class="notes" id="notes">{items}</ul>' if said else ""
    return (
        f'<div class="verdict {kind}" id="verdict">{esc(count_line(comparison))}</div>'
        f'<p class="suite {comparison.suite.verdict}" id="suite">{esc(suite_line(comparison))}</p>'
        f'<p class="note">{esc(method)} No mean across cases: it would hide the case that '
        f"broke.</p>{listed}"
    )


def _table(rows: list[tuple[int, CaseComparison]], a: _Side, b: _Side, level: float) -> str:
    ci = f"<br><small>pass@1 {level_text(level)} CI</small>"
    head = (
        f"<thead><tr><th>case</th><th>A passed{ci}</th><th>A errored</th><th>A attempts</th>"
        f"<th>B passed{ci}</th><th>B errored</th><th>B attempts</th><th>change</th>"
        "<th>p<br><small>Holm (raw)</small></th><th>verdict</th></tr></thead>"
    )
    body = "".join(_row(i, c, a, b, level) for i, c in rows)
    table = f'<table class="figures" id="comparison">{head}<tbody>{body}</tbody></table>'
    return f"{legend()}{table}"


def _passed(f: CaseFigures, level: float) -> str:
    """``7/10`` with the pass@1 interval under it, as text and as a bar."""
    interval = f.intervals(level).pass_at_1
    shown = "" if interval is None else (
        f'<span class="ci">{interval_text(interval)}</span>{interval_bar(interval)}'
    )  # fmt: skip
    return f'<td class="num passed">{f.passed}/{f.n}{shown}</td>'


def _errored(f: CaseFigures) -> str:
    return f'<td class="num errored{" some" * bool(f.errored)}">{f.errored}</td>'


def _row(index: int, c: CaseComparison, a: _Side, b: _Side, level: float) -> str:
    mark = ' <span class="mark">mostly errored</span>' if c.mostly_errored else ""
    return (
        f'<tr id="cmp-{index}" class="{c.verdict}"><td class="name">'
        f'<a href="#case-{index}">{esc(c.name)}</a></td>'
        f"{_passed(c.a, level)}{_errored(c.a)}<td>{attempts_grid(a.cells[c.name])}</td>"
        f"{_passed(c.b, level)}{_errored(c.b)}<td>{attempts_grid(b.cells[c.name])}</td>"
        f'<td class="num change">{signed(c.change)}</td>'
        f'<td class="num p">{p_text(c.p)}<span class="ci">{p_text(c.p_raw)}</span></td>'
        f'<td class="call {c.verdict}">{c.verdict}{mark}</td></tr>'
    )


def _only(compared: ComparedEvaluations) -> str:
    """The cases in only one of the two: listed, never tested."""
    comparison = compared.comparison
    lists = [
        f'<p id="only-{side.lower()}"><b>Only in {side}</b> ({len(names):,}): '
        f'<span class="names">{esc(", ".join(names))}</span></p>'
        for side, names in (("A", comparison.only_a), ("B", comparison.only_b))
        if names
    ]
    if not lists:
        return ""
    return '<h2 id="only">Cases in only one version (not compared)</h2>' + "".join(lists)


def _settings(a: StoredEvaluation, b: StoredEvaluation) -> str:
    """What each evaluation measured and how, side by side; a setting that differs is marked."""

    def values(stored: StoredEvaluation) -> list[tuple[str, object]]:
        s = stored.settings
        return [
            ("evaluation", stored.id),
            ("status", stored.status),
            ("started", iso_time(stored.created)),
            ("finished", iso_time(stored.finished)),
            ("agent", s.agent),
            ("version", s.version),
            ("ran", describe(stored.definition)),
            ("definition", None if stored.definition is None else compact_json(stored.definition)),
            ("cases file", s.cases_path),
            ("cases sha256", stored.cases_sha256 or None),
            ("attempts per case", s.attempts),
            ("k", s.k),
            ("require", None if s.require is None else str(s.require)),
            ("completion only", "yes" if s.completion_only else "no"),
            ("concurrency", s.concurrency),
            ("timeout", f"{s.timeout:g} s per attempt"),
            ("stack", s.stack or "none (local agents)"),
            ("agents file", s.agents_path),
        ]

    rows = "".join(
        f"<tr{DIFFERS * (x != y and label not in OWN)}><th>{esc(label)}</th>"
        f"<td>{esc(_shown(x))}</td><td>{esc(_shown(y))}</td></tr>"
        for (label, x), (_, y) in zip(values(a), values(b), strict=True)
    )
    head = "<thead><tr><th></th><th>A (baseline)</th><th>B (candidate)</th></tr></thead>"
    return f'<table class="figures settings-pair" id="settings">{head}<tbody>{rows}</tbody></table>'


def _shown(value: object) -> str:
    return "-" if value is None else str(value)


def _case_attempts(index: int, c: CaseComparison, a: _Side, b: _Side) -> str:
    """One case in both versions: its input and check, then each version's attempts."""
    case_a, case_b = a.cases[c.name], b.cases[c.name]
    errored = c.a.errored or c.b.errored
    marks = " has-errored" * bool(errored) + f" {c.verdict}"
    same = (case_a.input, case_a.spec) == (case_b.input, case_b.spec)
    decided_a, decided_b = a.decided_by, b.decided_by
    what = (
        input_and_check(case_a, decided_by=decided_a)
        if same and decided_a == decided_b
        else input_and_check(case_a, "A: ", decided_a) + input_and_check(case_b, "B: ", decided_b)
    )
    sides = "".join(
        f'<section><p class="note"><b>{side}</b> {esc(s.label)}: {f.passed}/{f.n} passed · '
        f"{f.wrong} wrong · {f.errored} errored</p>{attempts_list(records)}</section>"
        for side, s, f, records in (
            ("A", a, c.a, a.records[c.name]),
            ("B", b, c.b, b.records[c.name]),
        )
    )
    return (
        f'<details class="case{marks}" id="case-{index}"><summary>'
        f'<b class="name">{esc(c.name)}</b>{c.verdict} · A {c.a.passed}/{c.a.n} · '
        f"B {c.b.passed}/{c.b.n} · change {signed(c.change)}</summary>"
        f'{what}<div class="sides">{sides}</div></details>'
    )
