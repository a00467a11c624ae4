"""The HTML report at scale: what keeps a 2,000-case report light for the browser.

Rows and cases come in blocks a browser lays out only near the screen, every block with
the same columns; a case's attempts are a text block per outcome, so the elements do
not grow with the attempts (docs/benchmarks/notebook.md, "HTML report at scale").
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from passk_tui.core.attempt import Outcome
from passk_tui.reports.html_page import BLOCK
from passk_tui.reports.report import build_report
from passk_tui.reports.report_attempts import ANSWER_CHARS, attempts_list
from passk_tui.reports.report_html import render_report
from tests.support.reports import attempt_numbers, evaluation, record


class _Count(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags += 1


def elements(text: str) -> int:
    counter = _Count()
    counter.feed(text)
    return counter.tags


def test_rows_and_cases_come_in_blocks_with_the_same_columns() -> None:
    cases = 2 * BLOCK + 7
    text = render_report(build_report(evaluation(cases, 4)))
    table = re.search(
        r'<div class="results" id="figures".*?</div></div>(?=<p class="note">)', text, re.S
    )
    row_blocks = re.findall(r'<div class="block" style="([^"]*)">(.*?)</div>', table.group(0), re.S)
    assert len(row_blocks) == 3
    heads = {re.search(r"<colgroup>.*?</colgroup>", table.group(0)).group(0)}
    for style, block in row_blocks:
        assert re.fullmatch(r"contain-intrinsic-size:auto \d+rem", style)
        heads.add(re.search(r"<colgroup>.*?</colgroup>", block).group(0))
    assert len(heads) == 1  # the head's columns and every block's are the same
    rows = [int(i) for _, b in row_blocks for i in re.findall(r'<tr id="row-(\d+)">', b)]
    assert rows == list(range(cases))
    attempts = text[text.index('<h2 id="attempts">') :]
    case_blocks = attempts.split('<div class="block"')[1:]
    assert [b.count("<details ") for b in case_blocks] == [BLOCK, BLOCK, 7]
    assert "content-visibility: auto" in text


def test_elements_do_not_grow_with_the_attempts() -> None:
    few = render_report(build_report(evaluation(10, 10)))
    many = render_report(build_report(evaluation(10, 200)))
    assert elements(many) == elements(few)
    # Mixed outcomes: a block per outcome and a span per run of the grid, still not per attempt.
    mixed = render_report(
        build_report(evaluation(10, 200, lambda c, a: list(Outcome)[a // 50 % 3]))
    )
    assert elements(mixed) - elements(many) < 10 * 12


def test_a_cases_attempts_by_outcome_with_reasons_errors_and_ids() -> None:
    records = [
        record(0, 1, Outcome.PASSED, output="line one\nline two"),
        record(0, 2, Outcome.WRONG, output="392"),
        record(0, 3, Outcome.WRONG, output="392"),
        record(0, 4, Outcome.ERRORED, run_id="run_4", turn_id="turn_4"),
        record(0, 5, Outcome.WRONG, output="390"),
        record(0, 6, Outcome.ERRORED, status="timed_out", run_id="run_6"),
    ]
    html = attempts_list(records)
    heads = re.findall(r'<p class="outcome (\w+)">([^<]*)</p>', html)
    assert heads == [
        ("wrong", "✗ 3 wrong (the agent)"),
        ("errored", "! 2 errored (the platform)"),
        ("passed", "✓ 1 passed"),
    ]
    assert attempt_numbers(html) == [2, 3, 5, 4, 6, 1]
    wrong, errored, passed = re.findall(r"<pre[^>]*>(.*?)</pre>", html, re.S)
    assert wrong.splitlines() == [
        "#2 ✗   1.25 s  392",
        "               failed: expected '391'",
        "#3 ✗   1.25 s  same answer as #2, failed the same way",
        "#5 ✗   1.25 s  390",
        "               failed: same reason as #2",
    ]
    assert errored.splitlines() == [
        "#4 !   1.25 s  [failed] HTTP 503",
        "               run_4 / turn_4",
        "#6 !   1.25 s  [timed_out] same error as #4",
        "               run_6",
    ]
    # A line break in an answer stays, indented under the answer's start.
    assert passed.splitlines() == ["#1 ✓   1.25 s  line one", "               line two"]


def test_a_long_answer_says_its_full_size_even_when_the_store_kept_only_its_start() -> None:
    kept = "x" * 500
    html = attempts_list([record(0, 1, Outcome.PASSED, output=kept, output_size=2_000_000)])
    assert "x" * ANSWER_CHARS + "… [2,000,000 characters in all]" in html
    assert "x" * (ANSWER_CHARS + 1) not in html


def test_a_case_with_no_attempts_says_so() -> None:
    assert attempts_list([]) == '<p class="note">No attempts recorded.</p>'
    text = render_report(build_report(evaluation(3, 0)))
    assert text.count("No attempts recorded.") == 3
