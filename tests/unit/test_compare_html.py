"""The comparison's .html export: self-contained, escaped, regressions first, both versions per case.

Read with html.parser as a browser's parser would; tests/browser/test_browser.py opens it in chromium.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from passk_tui.core.render.compare_text import p_text, signed, suite_line
from passk_tui.core.stats.comparing.anytime_compare import ANYTIME_METHOD
from passk_tui.core.text.figure_text import interval_text
from passk_tui.reports.compare_export import RENDERERS, export_comparison
from passk_tui.store import Store
from passk_tui.store.comparison import ComparedEvaluations, load_compared
from tests.support.compare import (
    BASELINE,
    CANDIDATE,
    SUITE_LINE,
    SUITE_PASSES_A,
    SUITE_PASSES_B,
    store_evaluation,
    suite_counts,
)
from tests.support.reports import ATTEMPT_LINE, CONTROLS, HOSTILE, assert_controls_shown

ONLY_A = "retired"


class Page(HTMLParser):
    """The comparison table's rows (id, class, cell texts), the details with the attempts of
    each side (counted by their lines), every tag."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.rows: list[dict] = []
        self.details: list[dict] = []
        self.ids: dict[str, str] = {}
        self._in_table = False
        self._cell: list[str] | None = None
        self._open_ids: list[tuple[str, str | None]] = []
        self._attempts = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        self._open_ids.append((tag, a.get("id")))
        if a.get("id"):
            self.ids[a["id"]] = ""
        if tag == "table" and a.get("id") == "comparison":
            self._in_table = True
        elif self._in_table and tag == "tr" and a.get("id"):
            self.rows.append({"id": a["id"], "class": a.get("class"), "cells": []})
        elif self._in_table and tag == "td":
            self._cell = []
        elif tag == "details":
            self.details.append({"id": a["id"], "class": a["class"], "lists": []})
        elif tag == "section" and self.details:
            self.details[-1]["lists"].append(0)
        elif tag == "pre" and "attempts" in (a.get("class") or "") and self.details:
            self._attempts = True

    def handle_endtag(self, tag: str) -> None:
        while self._open_ids:
            name, _ = self._open_ids.pop()
            if name == tag:
                break
        if tag == "pre":
            self._attempts = False
        if tag == "table":
            self._in_table = False
        elif tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._attempts:
            self.details[-1]["lists"][-1] += len(ATTEMPT_LINE.findall(data))
        if self._cell is not None:
            self._cell.append(data)
        for _, open_id in self._open_ids:
            if open_id:
                self.ids[open_id] += data


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


@pytest.fixture
def compared() -> ComparedEvaluations:
    store_evaluation("ev_base01", {**BASELINE, ONLY_A: (1, 0, 0)}, created=1000.0, version=1)
    store_evaluation("ev_cand02", {**CANDIDATE, HOSTILE: (1, 0, 0)}, created=2000.0, version=2)
    with Store.open() as store:
        return load_compared(store, "last~1", "last")


def test_html_is_a_comparison_format(compared, tmp_path) -> None:
    assert list(RENDERERS) == [".json", ".csv", ".md", ".html"]
    path = export_comparison(compared, tmp_path / "cmp.html")
    assert path.read_text().startswith("<!DOCTYPE html>")


def test_regressions_first_with_both_versions_change_p_verdict_and_the_errored_mark(
    compared,
) -> None:
    page = parse(RENDERERS[".html"](compared))
    cases = {c.name: (i, c) for i, c in enumerate(compared.comparison.cases)}
    order = ["summary", "arithmetic", "json-shape"]  # regressed, improved, unclear
    assert [r["id"] for r in page.rows] == [f"cmp-{cases[n][0]}" for n in order]
    assert [r["class"] for r in page.rows] == ["regressed", "improved", "unclear"]
    for row, name in zip(page.rows, order, strict=True):
        _, c = cases[name]
        cells = row["cells"]
        assert cells[0] == name
        for f, passed, errored, grid in ((c.a, *cells[1:4]), (c.b, *cells[4:7])):
            interval = f.intervals(0.95).pass_at_1
            assert passed == f"{f.passed}/{f.n}{interval_text(interval)}"
            assert errored == str(f.errored)
            assert len(grid) == f.n  # a symbol per attempt
        assert cells[7] == signed(c.change)
        assert cells[8] == f"{p_text(c.p)}{p_text(c.p_raw)}"
        assert cells[9] == ("regressed mostly errored" if name == "summary" else str(c.verdict))
    assert page.ids["verdict"] == "1 improved, 1 regressed, 1 unclear"
    assert page.ids["suite"] == suite_line(compared.comparison)
    assert page.ids["suite"].startswith("suite: B better on 1 case, worse on 2, same on 0; ")
    assert "summary: the drop is mostly errored attempts" in page.ids["notes"]


def test_each_compared_case_shows_both_versions_attempts_collapsed(compared) -> None:
    page = parse(RENDERERS[".html"](compared))
    by_id = {d["id"]: d for d in page.details}
    assert [d["id"] for d in page.details] == [r["id"].replace("cmp", "case") for r in page.rows]
    for i, c in enumerate(compared.comparison.cases):
        details = by_id[f"case-{i}"]
        assert details["lists"] == [c.a.n, c.b.n]
        assert (" has-errored" in details["class"]) == bool(c.a.errored or c.b.errored)
    assert all(("open", None) not in a.items() for t, a in page.tags if t == "details")


def test_cases_in_only_one_are_listed_apart_and_escaped(compared) -> None:
    text = RENDERERS[".html"](compared)
    page = parse(text)
    assert page.ids["only-a"] == f"Only in A (1): {ONLY_A}"
    assert page.ids["only-b"] == f"Only in B (1): {HOSTILE}"
    assert HOSTILE not in text  # arrives as text, never as markup
    assert all(r["cells"][0] not in (ONLY_A, HOSTILE) for r in page.rows)


def test_the_settings_of_both_and_nothing_fetched_or_run(compared) -> None:
    text = RENDERERS[".html"](compared)
    page = parse(text)
    settings = page.ids["settings"]
    for stored in (compared.baseline, compared.candidate):
        assert stored.id in settings
    # Only the version is marked as differing: ids and times are each one's own.
    assert text.count('class="differs"') == 1
    assert '<tr class="differs"><th>version</th><td>1</td><td>2</td></tr>' in text
    names = {t for t, _ in page.tags}
    assert not {"script", "link", "img", "iframe", "object"} & names
    for _, attrs in page.tags:
        assert not {"src", "srcset", "action"} & attrs.keys()
        assert not any(k.startswith("on") for k in attrs)
        href = attrs.get("href")
        assert href is None or href.startswith("#")
    csp = [a["content"] for t, a in page.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in (csp[0] or "")


def test_control_and_bidi_characters_in_either_side_are_shown_as_escapes() -> None:
    store_evaluation("ev_base01", {CONTROLS: (1, 1, 0)}, created=1000.0, version=1)
    store_evaluation(
        "ev_cand02", {CONTROLS: (2, 0, 0), "new": (1, 0, 0)}, created=2000.0, version=2,
        inputs={CONTROLS: CONTROLS},
    )  # fmt: skip
    with Store.open() as store:
        assert_controls_shown(RENDERERS[".html"](load_compared(store, "last~1", "last")))


def test_the_suite_line_and_the_methods_named() -> None:
    store_evaluation("ev_a", suite_counts(SUITE_PASSES_A), created=1.0)
    store_evaluation("ev_b", suite_counts(SUITE_PASSES_B), created=2.0)
    store_evaluation("ev_c", suite_counts(SUITE_PASSES_B), created=3.0, max_attempts=40)
    with Store.open() as store:
        fixed_html = RENDERERS[".html"](load_compared(store, "ev_a", "ev_b"))
        looked_html = RENDERERS[".html"](load_compared(store, "ev_a", "ev_c"))
    fixed, looked = parse(fixed_html), parse(looked_html)
    assert fixed.ids["suite"] == SUITE_LINE
    assert ("p", {"class": "suite improved", "id": "suite"}) in fixed.tags
    assert "Cochran-Mantel-Haenszel test" in fixed_html and ANYTIME_METHOD not in fixed_html
    assert "; odds ratio 1.85, p " in looked.ids["suite"] and "CI" not in looked.ids["suite"]
    assert ANYTIME_METHOD in looked_html and "Fisher" not in looked_html
