"""The HTML report: self-contained, escaped, figures and intervals as the core computes them."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from html.parser import HTMLParser
from math import ceil, floor
from pathlib import Path

import pytest
from scipy.stats import binomtest

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.glyphs import SYMBOLS
from passk_tui.core.run.cases import Case
from passk_tui.core.stats.progress import Cell
from passk_tui.core.stats.rates.intervals import case_intervals
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE
from passk_tui.core.text.figure_text import interval_text, two_decimals
from passk_tui.reports.export import export
from passk_tui.reports.html_page import CLIP_CHARS, page
from passk_tui.reports.report import build_report
from passk_tui.reports.report_attempts import ANSWER_CHARS
from passk_tui.reports.report_html import render_report
from passk_tui.store import Store, StoredEvaluation
from tests.support.reports import (
    ATTEMPT_LINE,
    CONTROLS,
    HOSTILE,
    LONG_ANSWER,
    _fields,
    assert_controls_shown,
    attempt_numbers,
    awkward_evaluation,
)


def _html(stored, confidence: float | None = None) -> str:
    """The report as ``--export x.html`` writes it, at ``confidence`` (None: the point gate)."""
    return render_report(build_report(stored, confidence))


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text, as the browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(text: str) -> _Tags:
    parser = _Tags()
    parser.feed(text)
    return parser


def test_the_report_fetches_nothing_and_runs_nothing() -> None:
    tags = parsed(_html(awkward_evaluation()))
    names = [t for t, _ in tags.tags]
    assert "script" not in names and "link" not in names and "img" not in names
    assert "iframe" not in names and "object" not in names
    for _, attrs in tags.tags:
        assert not {"src", "srcset", "action", "background"} & attrs.keys()
        assert not any(k.startswith("on") for k in attrs), attrs
        href = attrs.get("href")
        assert href is None or href.startswith("#"), href
    csp = [a["content"] for t, a in tags.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]


def test_every_outside_value_is_escaped() -> None:
    text = _html(awkward_evaluation())
    assert HOSTILE not in text and "<b>0</b>" not in text and "<crashed>" not in text
    assert "bot<x>" not in text
    joined = "".join(parsed(text).text)
    for raw in (HOSTILE, "<b>0</b>", "tool <crashed> & burned", "bot<x>", "got '<b>'"):
        assert raw in joined


def test_long_answers_are_cut_with_their_size_said_and_repeats_point_back() -> None:
    text = _html(awkward_evaluation())
    assert LONG_ANSWER not in text
    assert "y" * ANSWER_CHARS + "…" in text and "y" * (ANSWER_CHARS + 1) not in text
    assert f"{len(LONG_ANSWER):,} characters in all" in text
    # "always" gave the same long answer five times: written once, then pointed at.
    always = re.search(r'<details class="case" id="case-2">.*?</details>', text, re.S).group(0)
    assert always.count("y" * ANSWER_CHARS) == 1
    assert always.count("same answer as #1") == 4


def test_each_attempt_line_says_its_own_number_so_a_gap_shows() -> None:
    stored = awkward_evaluation()
    # Attempt 3 of "always" withdrawn (not recorded): the lines go 1, 2, 4, 5.
    records = [r for r in stored.records if not (r.case_index == 2 and r.attempt == 3)]
    text = _html(StoredEvaluation(**{**_fields(stored), "records": records}))
    always = re.search(r'<details class="case" id="case-2">.*?</details>', text, re.S).group(0)
    assert attempt_numbers(always) == [1, 2, 4, 5]


def test_a_long_input_is_cut_at_its_own_limit() -> None:
    stored = awkward_evaluation()
    long_input = Case("long", "z" * (CLIP_CHARS + 1), None, {"equals": "1"})
    text = _html(StoredEvaluation(**{**_fields(stored), "cases": [*stored.cases[:3], long_input]}))
    assert "z" * CLIP_CHARS + "…" in text and f"{CLIP_CHARS + 1:,} characters in all" in text


def row_cells(text: str, index: int) -> list[str]:
    """The text of each cell of the results table's row for case ``index``."""
    row = re.search(rf'<tr id="row-{index}">(.*?)</tr>', text, re.S)
    assert row is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)
    return [re.sub(r"<[^>]+>", " ", c).split()[0] if c.strip() else "" for c in cells]


def test_figures_and_intervals_are_the_cores_and_fewer_than_k_is_a_dash() -> None:
    stored = awkward_evaluation()
    text = _html(stored)
    # A case cut short of its planned n: every interval is the anytime-valid one, named.
    method = build_report(stored).intervals.method
    assert method is CONFIDENCE_SEQUENCE and f"Intervals are {method.label}" in text
    for i, f in enumerate(stored.figures()):
        cells = row_cells(text, i)
        iv = case_intervals(f.passed, f.n, 3, method=method, order=f.order)
        assert cells[1] == f"{f.passed}/{f.n}"
        assert cells[4] == two_decimals(f.pass_at_1)
        if f.n < 3:
            assert cells[5:8] == ["-", "-", "-"], cells  # pass@3, pass^3, all passed
            assert cells[8] == "-"  # gate: not judged
        else:
            assert cells[5] == two_decimals(f.pass_at_k)
            assert cells[6] == two_decimals(f.pass_hat_k)
            block = re.search(rf'<tr id="row-{i}">.*?</tr>', text, re.S).group(0)
            assert interval_text(iv.pass_at_k) in block and interval_text(iv.pass_at_1) in block
    # Every case at its planned n: the exact interval, checked against scipy's Clopper-Pearson
    # (3 of 5 at 95%), its ends rounded outward.
    whole = [i for i, f in enumerate(stored.figures()) if f.finished]
    reached = replace(
        stored,
        cases=[stored.cases[i] for i in whole],
        records=[r for r in stored.records if r.case_index in whole],
    )
    scipy_ci = binomtest(3, 5).proportion_ci(0.95, method="exact")
    low, high = floor(scipy_ci.low * 100), ceil(scipy_ci.high * 100)
    assert f"{low // 100}.{low % 100:02d}-{high // 100}.{high % 100:02d}" in _html(reached)


def test_point_gate_without_confidence_names_the_failing_case() -> None:
    stored = awkward_evaluation()
    text = _html(stored)
    verdict = re.search(r'<div class="verdict (\w+)" id="verdict">(.*?)</div>', text, re.S)
    assert verdict.group(1) == "fail"
    assert "for 1 case:" in verdict.group(2) and "Not judged" in verdict.group(2)
    # arithmetic: pass@3 over 3/5 is 1.0 >= 0.5; the hostile case 0/5 fails; always passes.
    assert [row_cells(text, i)[8] for i in range(3)] == ["pass", "fail", "pass"]


def test_confident_gate_reads_the_interval_at_the_runs_level() -> None:
    settings = Settings("bot", 1, "/tmp/c.toml", attempts=5, k=3, require=Fraction(9, 10))
    stored = awkward_evaluation(settings)
    text = _html(stored, 0.8)
    assert "80% CI" in text and "95% CI" not in text
    # 5/5 at 80%: L = 0.2^(1/5) = 0.72, so pass@3 L = 1-(1-0.72)^3 = 0.98 >= 0.9: pass.
    # 3/5: the pass@3 interval straddles 0.9: undecided. 0/5: U < 0.9: fail.
    assert [row_cells(text, i)[8] for i in range(3)] == ["undecided", "fail", "pass"]
    assert '<div class="verdict fail"' in text and "Undecided:" in text


def test_the_grid_draws_the_apps_symbols_and_the_split_is_counted() -> None:
    text = _html(awkward_evaluation())
    passed, wrong, errored = (SYMBOLS[c] for c in (Cell.PASSED, Cell.WRONG, Cell.ERRORED))
    row = re.search(r'<tr id="row-0">.*?</tr>', text, re.S).group(0)
    grid = re.search(r'<span class="grid">((?:[^<]|<span[^>]*>[^<]*</span>)*)</span>', row)
    assert re.sub(r"<[^>]+>", "", grid.group(1)) == f"{passed}{passed}{wrong}{errored}{passed}"
    # The grid's own colour is passed's: only the other states' runs need a span.
    assert re.findall(r'class="s-(\w+)"', grid.group(1)) == ["wrong", "errored"]
    assert "<b>9</b> attempts passed" in text
    assert "<b>6</b> wrong (the agent) in 3 cases" in text
    assert "<b>2</b> errored (the platform) in 2 cases" in text
    assert len(re.findall(r'<details class="case', text)) == 4
    assert len(attempt_numbers(text)) == 17
    # By outcome, wrong first: arithmetic (PPWEP) reads #3, then #4, then #1 #2 #5.
    arithmetic = re.search(r'<details[^>]* id="case-0">.*?</details>', text, re.S).group(0)
    assert attempt_numbers(arithmetic) == [3, 4, 1, 2, 5]
    symbols = [s for block in re.findall(r"<pre[^>]*>(.*?)</pre>", arithmetic, re.S)
               for _, s in ATTEMPT_LINE.findall(block)]  # fmt: skip
    assert symbols == [wrong, errored, passed, passed, passed]


def test_export_by_suffix_writes_the_report(tmp_path: Path) -> None:
    stored = awkward_evaluation()
    path = export(stored, tmp_path / "report.html")
    assert path.read_text(encoding="utf-8") == _html(stored)


def test_the_frame_is_shared_and_escapes_its_title() -> None:
    text = page("A <b> B", "<p>body</p>")
    assert "<title>A &lt;b&gt; B</title>" in text and "<p>body</p>" in text
    assert "@media print" in text


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_the_state_colours_are_the_apps(theme: str) -> None:
    from textual.theme import BUILTIN_THEMES

    css = page("t", "")
    t = BUILTIN_THEMES[theme]
    for name, colour in (("passed", t.success), ("wrong", t.warning), ("errored", t.error)):
        assert f"--{name}: {colour.lower()};" in css


def test_control_and_bidi_characters_are_shown_as_escapes_as_the_md_does(tmp_path: Path) -> None:
    cases = [Case(CONTROLS, {"q": CONTROLS}, None, {"equals": CONTROLS})]
    records = [
        AttemptRecord(
            0, CONTROLS, 1, "ev_c/0/1", Outcome.WRONG, "completed", CONTROLS,
            f"expected {CONTROLS}", None, None, None, 0.0, 1.0,
        ),
        AttemptRecord(
            0, CONTROLS, 2, "ev_c/0/2", Outcome.ERRORED, "failed", None, None,
            f"tool said {CONTROLS}", None, None, 0.0, 1.0,
        ),
    ]  # fmt: skip
    settings = Settings("bot", 1, f"/tmp/{CONTROLS}/c.toml", attempts=2, k=1)
    with Store.open() as store:
        store.create_evaluation("ev_c", settings, cases, "h", created=0.0)
        store.write("ev_c", records)
        store.finish("ev_c", "done")
        stored = store.load("ev_c")
    html = _html(stored)
    assert_controls_shown(html)
    # The answer, the reason, the error, the input and the check, the name and the cases path.
    assert html.count("\\u202eevil.exe") >= 7
    # Newlines still lay the answer out in lines: only the hazards are escaped.
    assert "\\n" not in html
