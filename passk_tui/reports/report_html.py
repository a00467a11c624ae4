"""The .html export: one evaluation as a self-contained report a reviewer opens from a CI artifact.

It shows the settings (the key is never part of them), the verdict of the gate, the
wrong/errored split, the table with intervals and each case's attempts grid, and per
case its attempts (answer, check verdict and reason, error) collapsed in ``<details>``
so the page stays readable, light and usable with scripts off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.agent_definition import describe, fields, outside_verdict
from passk_tui.core.inputs.price import price_text
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.reading.vocabulary import (
    CaseFigures,
    CaseReading,
    FigureIntervals,
    GateVerdict,
    Interval,
    Reading,
    StopReason,
)
from passk_tui.core.render.adaptive_text import stop_rule_text
from passk_tui.core.run.cases import Case
from passk_tui.core.text.figure_text import gate_text, interval_text, level_text, two_decimals
from passk_tui.reports.costs import cost_section
from passk_tui.reports.html_page import (
    attempts_grid,
    blocks,
    counted,
    esc,
    input_and_check,
    interval_bar,
    legend,
    page,
    settings_list,
)
from passk_tui.reports.judge_html import judge_section
from passk_tui.reports.report import Report, TableGroup, table_groups
from passk_tui.reports.report_attempts import ATTEMPTS_NOTE, CASE_REM, attempts_list
from passk_tui.reports.transcripts import transcripts_html
from passk_tui.store.models import StoredEvaluation

#: Cases named in the verdict line before "and N more".
NAMED_IN_VERDICT = 12
#: What is shown for a figure that is not defined yet (fewer than k attempts).
UNDEFINED = "-"
#: Longest case name the name column is sized for (a longer one wraps), and the shortest.
NAME_CHARS = (6, 28)
#: Most grid symbols on one line of the attempts column (more wrap onto the next line).
GRID_LINE = 25
#: A table row's likely height in rem (at two lines of grid or fewer).
ROW_REM = 3.6


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case as the report shows it: its reading (figures, intervals, verdict) and its attempts."""

    index: int
    case: Case
    reading: CaseReading
    cells: bytes
    """The state of each attempt's cell, as the app's grid holds it."""
    records: list[AttemptRecord]
    """The case's finished attempts, by attempt number."""
    stop_reason: StopReason | None = None
    """Adaptive: why it stopped getting attempts; None for a fixed n or while sampled."""

    @property
    def figures(self) -> CaseFigures:
        return self.reading.figures

    @property
    def intervals(self) -> FigureIntervals:
        return self.reading.intervals

    @property
    def gate(self) -> GateVerdict | None:
        """The gate's verdict; None when no gate was set or pass@k is not defined yet."""
        return None if self.figures.pass_at_k is None else self.reading.verdict


def case_rows(report: Report) -> list[CaseRow]:
    """Every case as the exports read it (store/report.py), with its cells and attempts."""
    progress = report.stored.progress()
    return [
        CaseRow(
            i,
            c.case,
            c.reading,
            bytes(progress.cells[i]),
            sorted(progress.records[i], key=lambda r: r.attempt),
            c.stop_reason,
        )
        for i, c in enumerate(report.cases)
    ]


def render_report(report: Report) -> str:
    """The whole report as one HTML document."""
    stored = report.stored
    s = stored.settings
    rows = case_rows(report)
    groups = [_group_rows(group, rows, s) for group in table_groups(report)]
    decided = outside_verdict(stored.definition)
    title = f"passk-tui: {s.agent} version {s.version}"
    body = "\n".join(
        [
            f"<header><h1>{esc(title)}</h1>{_subtitle(stored, report.per_test)}</header>",
            *(_verdict(*group, anchor=f"verdict{i or ''}") for i, group in enumerate(groups)),
            _split(rows),
            '<h2 id="results">Results</h2>',
            *(_table(*group, anchor=f"figures{i or ''}") for i, group in enumerate(groups)),
            *judge_section(report.evaluation),
            '<h2 id="cost">What it cost</h2>',
            cost_section(stored, report.evaluation),
            "<h2>Settings</h2>",
            _settings(report),
            '<h2 id="attempts">Attempts per case</h2>',
            f'<p class="note">{ATTEMPTS_NOTE} A case with an errored attempt is marked in red, '
            "one with a wrong answer (and none errored) in orange. On paper, the opened ones "
            "print with their attempts.</p>",
            blocks([_case_attempts(row, decided) for row in rows], CASE_REM),
        ]
    )
    return page(title, body)


def _group_rows(
    group: TableGroup, rows: Sequence[CaseRow], s: Settings
) -> tuple[list[CaseRow], Settings, Reading, str | None]:
    """One way of reading the cases (a pytest session's tests may each have their own): its
    rows read that way, the settings it reads them by (its k and gate), and its heading."""
    terms = group.reading
    at = {c.case.name: c.reading for c in group.cases}
    shown = [replace(r, reading=at[r.case.name]) for r in rows if r.case.name in at]
    return shown, replace(s, k=terms.k, require=terms.require), terms, group.heading


def _when(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _subtitle(stored: StoredEvaluation, per_test: bool) -> str:
    """Which evaluation, what ran, how far it got. A pytest session's tests planned their own
    attempts, so it has no one planned total (the stored count is the fewest's)."""
    s = stored.settings
    recorded = len(stored.records)
    if s.adaptive:
        extent = (
            f"{recorded:,} attempts recorded (adaptive: {s.attempts} to {s.max_attempts} per case)"
        )
    elif per_test:
        extent = f"{recorded:,} attempts recorded, each test its own number"
    else:
        extent = f"{recorded:,} of {len(stored.cases) * s.attempts:,} attempts recorded"
    parts = [
        f"evaluation <code>{esc(stored.id)}</code>",
        f"ran <code>{esc(describe(stored.definition))}</code>",
        esc(stored.status),
        extent,
        f"started {esc(_when(stored.created))}",
    ]
    if stored.finished is not None:
        parts.append(f"finished {esc(_when(stored.finished))}")
    if stored.error:
        parts.append(f"error: {esc(stored.error)}")
    if stored.status_reason:
        parts.append(f"<b>{esc(stored.status_reason)}</b>")
    return f'<p class="subtitle">{" · ".join(parts)}</p>'


def _names(rows: Sequence[CaseRow]) -> str:
    shown = ", ".join(
        f'<a href="#case-{r.index}">{esc(r.case.name)}</a>' for r in rows[:NAMED_IN_VERDICT]
    )
    more = len(rows) - NAMED_IN_VERDICT
    return shown + (f" and {more:,} more" if more > 0 else "")


def _verdict(
    rows: Sequence[CaseRow],
    s: Settings,
    reading: Reading,
    heading: str | None = None,
    anchor: str = "verdict",
) -> str:
    """The gate's verdict in one line at the top: held, failed (naming cases) or undecided;
    under the way the cases were read, when a pytest session read its tests in several."""
    said = "" if heading is None else f"<b>{esc(heading)}</b>: "
    if s.require is None:
        return (
            f'<div class="verdict none" id="{anchor}">{said}No gate (<code>--require</code>) '
            "was set.</div>"
        )
    confidence, confident = reading.level, reading.confident
    shown = esc(gate_text(s.require))
    how = f"the pass@{s.k} {level_text(confidence)} interval" if confident else f"pass@{s.k}"
    failing = [r for r in rows if r.gate == "fail"]
    undecided = [r for r in rows if r.gate == "undecided"]
    unjudged = [r for r in rows if r.gate is None]
    lines = []
    if failing:
        lines.append(
            f"Gate failed: {how} below <code>--require {shown}</code> for "
            f"{counted(len(failing), 'case')}: "
            f'<span class="names">{_names(failing)}</span>'
        )
    if undecided:
        lines.append(
            f"Undecided: {how} straddles {shown} for {counted(len(undecided), 'case')} "
            "(more attempts would settle it): "
            f'<span class="names">{_names(undecided)}</span>'
        )
    if unjudged:
        lines.append(
            f"Not judged: fewer than {s.k} attempts for "
            f'<span class="names">{_names(unjudged)}</span>'
        )
    if not lines:
        verb = "lies at or above" if confident else "is at least"
        held = f"Gate held: every case's {how} {verb} {shown}."
        return f'<div class="verdict pass" id="{anchor}">{said}{held}</div>'
    kind = "fail" if failing else "undecided"
    return f'<div class="verdict {kind}" id="{anchor}">{said}{"<br>".join(lines)}</div>'


def _split(rows: Sequence[CaseRow]) -> str:
    """Passed, wrong and errored attempts, and the cases each touches: the split at a glance."""
    passed = sum(r.figures.passed for r in rows)
    wrong = sum(r.figures.wrong for r in rows)
    errored = sum(r.figures.errored for r in rows)
    wrong_cases = sum(1 for r in rows if r.figures.wrong)
    errored_cases = sum(1 for r in rows if r.figures.errored)
    return (
        '<div class="split" id="split">'
        f'<span class="chip">{counted(len(rows), "case")}</span>'
        f'<span class="chip passed"><b>{passed:,}</b> attempts passed</span>'
        f'<span class="chip wrong"><b>{wrong:,}</b> wrong (the agent) in '
        f"{counted(wrong_cases, 'case')}</span>"
        f'<span class="chip errored"><b>{errored:,}</b> errored (the platform) in '
        f"{counted(errored_cases, 'case')}</span></div>"
    )


def _settings(report: Report) -> str:
    stored, reading = report.stored, report.reading
    s = stored.settings
    confidence, given = reading.level, reading.confident
    return settings_list(
        [
            ("agent", s.agent),
            ("version", s.version),
            *fields(stored.definition),
            ("cases file", s.cases_path),
            ("cases sha256", stored.cases_sha256 or None),
            ("attempts per case", s.attempts),
            ("max attempts", s.max_attempts),
            ("stop rule", stop_rule_text(s)),
            ("k", s.k),
            ("require", None if s.require is None else gate_text(s.require)),
            (
                "intervals",
                f"{reading.method.label} at {level_text(confidence)}"
                + ("" if given else " (the default level)")
                + f": {report.intervals.why}",
            ),
            ("completion only", "yes" if s.completion_only else "no"),
            ("concurrency", s.concurrency),
            ("timeout", f"{s.timeout:g} s per attempt"),
            ("stack", s.stack or "none (local agents)"),
            ("agents file", s.agents_path),
            ("price per million tokens", None if s.price is None else price_text(s.price)),
        ]
    )


# -- the table ---------------------------------------------------------------------------


def _figure(
    value: Fraction | None, interval: Interval | None, bar: bool = False, mark: float | None = None
) -> str:
    """A figure with its interval on the line under it (and, for pass@k, the interval as a bar).

    The interval is the cell's second line, styled by ``::first-line`` (report.css), not an
    element of its own: 6,000 fewer elements in a 2,000-case report. ``-`` if undefined.
    """
    if value is None or interval is None:
        return f'<td class="num">{UNDEFINED}</td>'
    drawn = interval_bar(interval, mark) if bar else ""
    return f'<td class="num fig">{two_decimals(value)}\n{interval_text(interval)}{drawn}</td>'


def _table(
    rows: Sequence[CaseRow],
    s: Settings,
    reading: Reading,
    heading: str | None = None,
    anchor: str = "figures",
) -> str:
    """The results table: a sticky head, then the rows in blocks laid out only near the screen.

    Every block is its own fixed-layout table with the same columns (sized from the
    longest name and the most attempts), so the blocks line up as one table and none
    has to be measured before it is shown.
    """
    level = level_text(reading.level)
    k = s.k
    ci = f"<br><small>{level} CI</small>"
    gate_head = "" if s.require is None else "<th>gate</th>"
    stop_head = "<th>stopped</th>" if s.adaptive else ""
    head = (
        "<thead><tr><th>case</th><th>passed</th><th>wrong</th><th>errored</th>"
        f"<th>pass@1{ci}</th><th>pass@{k}{ci}</th><th>pass^{k}{ci}</th><th>all passed</th>"
        f"{gate_head}{stop_head}<th>attempts</th></tr></thead>"
    )
    columns, width = _columns(s)
    longest = max((len(r.case.name) for r in rows), default=0)
    name = min(max(longest, NAME_CHARS[0]), NAME_CHARS[1])
    most = max((len(r.cells) for r in rows), default=1)
    cells = min(max(most, 1), GRID_LINE)
    grid_lines = -(-most // GRID_LINE)
    row_rem = max(ROW_REM, grid_lines * 1.5 + 0.6)
    body = blocks(
        [_table_row(r, s) for r in rows],
        row_rem,
        f'<table class="figures fixed">{columns}<tbody>',
        "</tbody></table>",
    )
    note = (
        f'<p class="note">Intervals are {reading.method.label} at {level} for each case\'s '
        f"per-attempt pass rate, mapped through each figure; the bar under pass@{k} draws its "
        f"interval{'' if s.require is None else ' and the gate'}. pass@{k} and pass^{k} are "
        f"not defined with fewer than {k} attempts (shown as {UNDEFINED}); neither is all "
        "passed for an unfinished case. No mean across cases is shown: it would hide the case "
        "that always fails.</p>"
    )
    table = (
        f'<div class="results" id="{anchor}" style="--name:{name};--cells:{cells};--table-w:{width}">'
        f'<div class="head"><table class="figures fixed">{columns}{head}</table></div>'
        f"{body}</div>"
    )
    said = "" if heading is None else f"<h3>{esc(heading)}</h3>"
    key = legend() if anchor == "figures" else ""  # once, above the first table
    return f"{said}{key}{table}{note}"


def _columns(s: Settings) -> tuple[str, str]:
    """The table's columns, each with its width (report.css), the same in every block; and
    the table's width, their sum (a fixed layout keeps to the width it is given)."""
    kinds = ["name", "count", "count", "count", "figure", "figure", "figure", "all"]
    kinds += ["gate"] * (s.require is not None) + ["stopped"] * s.adaptive + ["grid"]
    columns = "".join(f'<col class="{kind}">' for kind in kinds)
    width = " + ".join(f"var(--{kind}-w)" for kind in kinds)
    return f"<colgroup>{columns}</colgroup>", f"calc({width})"


def _some(count: int) -> str:
    """The class that makes a non-zero wrong or errored count stand out."""
    return " some" if count else ""


def _table_row(r: CaseRow, s: Settings) -> str:
    f, iv = r.figures, r.intervals
    finished = f.n >= s.attempts
    all_passed = ("yes" if f.all_passed else "no") if finished and f.n else UNDEFINED
    mark = None if s.require is None else float(s.require)
    gate = (
        "" if s.require is None else f'<td class="gate {r.gate or ""}">{r.gate or UNDEFINED}</td>'
    )
    if s.adaptive:
        gate += f'<td class="stopped">{esc(str(r.stop_reason or UNDEFINED))}</td>'

    return (
        f'<tr id="row-{r.index}"><td class="name">'
        f'<a href="#case-{r.index}">{esc(r.case.name)}</a></td>'
        f'<td class="num passed">{f.passed}/{f.n}</td>'
        f'<td class="num wrong{_some(f.wrong)}">{f.wrong}</td>'
        f'<td class="num errored{_some(f.errored)}">{f.errored}</td>'
        f"{_figure(f.pass_at_1, iv.pass_at_1)}"
        f"{_figure(f.pass_at_k, iv.pass_at_k, bar=True, mark=mark)}"
        f"{_figure(f.pass_hat_k, iv.pass_hat_k)}"
        f'<td class="num">{all_passed}</td>{gate}'
        f"<td>{attempts_grid(r.cells)}</td></tr>"
    )


# -- per case, its attempts ----------------------------------------------------------------


def _case_attempts(r: CaseRow, decided_by: str | None) -> str:
    """One case's attempts in a collapsed <details>: the input, the check, then one line each."""
    f = r.figures
    marks = " has-errored" * bool(f.errored) + " has-wrong" * bool(f.wrong)
    return (
        f'<details class="case{marks}" id="case-{r.index}"><summary>'
        f'<b class="name">{esc(r.case.name)}</b>{f.passed}/{f.n} passed · {f.wrong} wrong · '
        f"{f.errored} errored{'' if r.stop_reason is None else ' · ' + esc(str(r.stop_reason))}"
        f"</summary>{input_and_check(r.case, decided_by=decided_by)}{attempts_list(r.records)}"
        f"{transcripts_html(r.records)}</details>"
    )
