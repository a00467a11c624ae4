"""Exports: each format parses back to the same figures; the JUnit file has the JUnit shape."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import threading
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import datetime
from fractions import Fraction
from pathlib import Path

import pytest

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.table import table_rows
from passk_tui.core.run.cases import Case
from passk_tui.core.stats.gating.gate import read
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE
from passk_tui.core.text.figure_text import interval_text, outward_ends, two_decimals, yes_no
from passk_tui.reports.export import ExportError, export, render_csv, render_json, render_md
from passk_tui.reports.junit import render_junit
from passk_tui.reports.report import build_report
from passk_tui.store import DB_NAME, Store, StoredEvaluation
from tests.support import CLI_AGENTS, ROOT
from tests.support.cli import environment, run, scripted

AGENTS = CLI_AGENTS
METHODS = {m.name: m for m in (CLOPPER_PEARSON, CONFIDENCE_SEQUENCE)}
SEED = [
    CaseFigures("arithmetic", 5, 3, 2, 0, 3, 5),
    CaseFigures("json-shape", 5, 0, 4, 1, 3, 5),
    CaseFigures("summary", 5, 5, 0, 0, 3, 5),
]


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    folder = tmp_path / "agents"
    shutil.copytree(AGENTS, folder)
    return folder


def seed_run(agents: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The seed suite with the scripted agent, 3 at a time, stored in ``data``."""
    return scripted(
        agents, "--cases", str(agents / "seed.toml"), "--concurrency", "3", *args, data=data
    )


def figures_of_json(document: dict) -> list[CaseFigures]:
    """The figures the document's counts give, its intervals checked against the method it
    names (the anytime-valid one reads each case's outcomes in order, from its attempts)."""
    k = document["evaluation"]["k"]
    planned = document["evaluation"]["attempts"]
    level = document["intervals"]["level"]
    method = METHODS[document["intervals"]["method"]]
    out = []
    for index, case in enumerate(document["cases"]):
        f = case["figures"]
        figures = CaseFigures(
            case["name"], f["attempts"], f["passed"], f["wrong"], f["errored"], k, planned
        )
        order = bytes(
            a["outcome"] == "passed"
            for a in sorted(document["attempts"], key=lambda a: a["attempt"])
            if a["case_index"] == index
        )
        for name in ("pass_at_1", "pass_at_k", "pass_hat_k"):
            value = getattr(figures, name)
            assert f[name] == (None if value is None else float(value))
            assert f["exact"][name] == (None if value is None else str(value))
            interval = getattr(replace(figures, order=order).intervals(level, method), name)
            got = case["intervals"][name]
            assert got == (
                None if interval is None else {"low": interval.low, "high": interval.high}
            )
        assert f["all_passed"] == figures.all_passed
        out.append(figures)
    return out


def figures_of_csv(text: str, k: int, planned: int) -> list[CaseFigures]:
    rows = list(csv.DictReader(io.StringIO(text)))
    out = []
    for row in rows:
        figures = CaseFigures(
            row["case"],
            int(row["attempts"]),
            int(row["passed"]),
            int(row["wrong"]),
            int(row["errored"]),
            k,
            planned,
        )
        level = float(row["level"])
        for column, name in (
            ("pass@1", "pass_at_1"),
            (f"pass@{k}", "pass_at_k"),
            (f"pass^{k}", "pass_hat_k"),
        ):
            assert row[column] == two_decimals(getattr(figures, name))
            interval = getattr(figures.intervals(level), name)
            ends = ["-", "-"] if interval is None else list(outward_ends(interval))
            assert [row[f"{column} low"], row[f"{column} high"]] == ends
        assert row["all_passed"] == yes_no(figures.all_passed)
        assert row["method"] == "clopper-pearson"
        assert row["gate_kind"] in ("point", "confident", "none")
        out.append(figures)
    return out


def md_table(text: str) -> list[tuple[str, ...]]:
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = [re.sub(r"\\(.)", r"\1", c.strip()) for c in line[2:-2].split(" | ")]
            rows.append(tuple(cells))
    return rows


def junit(text: str) -> ET.Element:
    """The file's one suite, after checking the JUnit shape and that every count is right."""
    root = ET.fromstring(text.encode())
    assert root.tag == "testsuites"
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    for element in (root, suite):
        assert int(element.get("tests")) == len(cases)
        for tag, count in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            assert int(element.get(count)) == sum(c.find(tag) is not None for c in cases)
        float(element.get("time"))
    for case in cases:
        assert case.get("classname") and case.get("name")
        float(case.get("time"))
        assert set(child.tag for child in case) <= {
            "properties",
            "failure",
            "error",
            "skipped",
            "system-out",
        }
    return suite


def red(suite: ET.Element) -> dict[str, tuple[str, str]]:
    """The testcases a CI shows red: name -> (failure or error, its message)."""
    out = {}
    for case in suite.findall("testcase"):
        for tag in ("failure", "error"):
            element = case.find(tag)
            if element is not None:
                out[case.get("name")] = (tag, element.get("message"))
    return out


def case_properties(suite: ET.Element, name: str) -> dict[str, str]:
    [case] = [c for c in suite.findall("testcase") if c.get("name") == name]
    return {p.get("name"): p.get("value") for p in case.find("properties")}


def test_every_format_round_trips_the_seed_figures(agents: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    outputs = {}
    for suffix in ("json", "csv", "md", "xml"):
        out = tmp_path / f"seed.{suffix}"
        result = seed_run(agents, data, "--require", "0.9", "--export", str(out))
        assert result.returncode == 1, result.stderr  # json-shape is under the gate
        assert result.stderr.endswith(f"passk-tui: wrote {out}\n")
        shutil.rmtree(agents / "state")  # the scripted agent starts its scripts over
        outputs[suffix] = out.read_text()

    document = json.loads(outputs["json"])
    assert figures_of_json(document) == SEED
    assert document["gate"] == {
        "require": "0.9",
        "kind": "point",
        "confidence": None,
        "promise": None,
        "case_level": None,
        "held": False,
        "under": ["json-shape"],
        "undecided": [],
        "exit_status": 1,
    }
    assert document["intervals"] == {
        "level": 0.95,
        "method": "clopper-pearson",
        "label": "exact (Clopper-Pearson)",
        "n_chosen": "in advance",
        "why": "n was fixed in advance and reached as planned",
    }
    assert document["evaluation"]["status"] == "done"
    attempts = document["attempts"]
    assert len(attempts) == 15
    assert {(a["case"], a["attempt"]) for a in attempts} == {
        (c.name, n) for c in SEED for n in range(1, 6)
    }
    assert all(a["key"].startswith(document["evaluation"]["id"]) for a in attempts)
    times = [document["evaluation"]["created"], document["evaluation"]["finished"]]
    times += [a[t] for a in attempts for t in ("started", "ended")]
    for text in times:  # one kind of time throughout: ISO 8601 in UTC
        assert isinstance(text, str) and text.endswith("+00:00")
        datetime.fromisoformat(text)

    assert figures_of_csv(outputs["csv"], 3, 5) == SEED
    assert "0.6," in outputs["csv"] or "0.60," in outputs["csv"]
    assert not re.search(r"\d\.\d{3}", outputs["csv"])  # two decimals, as everywhere else

    reading = read(SEED, Fraction("0.9"))
    assert md_table(outputs["md"]) == table_rows(SEED, 3, reading, pass_hat=True)
    assert "pass^3" in md_table(outputs["md"])[0]
    assert "**Gate failed**" in outputs["md"] and "`json-shape` (0.00)" in outputs["md"]

    suite = junit(outputs["xml"])
    assert [c.get("name") for c in suite.findall("testcase")] == [f.name for f in SEED]
    assert red(suite) == {
        "json-shape": (
            "failure",
            "pass@3 0.00 is below --require 0.9: 0 passed, 4 wrong, 1 errored of 5 attempts",
        )
    }
    props = case_properties(suite, "arithmetic")
    assert props["pass@3"] == "1.00" and props["pass^3"] == "0.10"
    assert props["pass@3 95% CI"] == interval_text(SEED[0].intervals().pass_at_k)


def test_junit_without_a_gate_is_green_as_the_exit_status_is(agents: Path, tmp_path) -> None:
    """No --require: exit 0, so nothing is red; the failures are there as figures and text."""
    out = tmp_path / "seed.xml"
    result = seed_run(agents, tmp_path / "data", "--export", str(out))
    assert result.returncode == 0, result.stderr
    suite = junit(out.read_text())
    assert red(suite) == {}
    assert suite.get("failures") == "0" and suite.get("errors") == "0"
    [shape] = [c for c in suite.findall("testcase") if c.get("name") == "json-shape"]
    assert "0 passed, 4 wrong, 1 errored" in shape.find("system-out").text
    assert "attempt 1 wrong: answer" in shape.find("system-out").text
    assert case_properties(suite, "json-shape")["gate"] == "-"


def test_junit_under_the_confident_gate_agrees_with_exit_4(agents: Path, tmp_path) -> None:
    out = tmp_path / "seed.xml"
    result = seed_run(
        agents, tmp_path / "data", "--require", "0.5", "--confidence", "0.95", "--export", str(out)
    )
    assert result.returncode == 4, result.stderr
    suite = junit(out.read_text())
    got = red(suite)
    assert set(got) == {"arithmetic", "json-shape"}  # undecided; summary passes
    assert got["arithmetic"] == (
        "failure",
        "pass@3 95% CI 0.37-1.00 includes --require 0.5 (undecided): "
        "3 passed, 2 wrong, 0 errored of 5 attempts",
    )
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["gate"] == "confident" and props["exit status"] == "4"


@pytest.mark.parametrize("name", ["out.txt", "out", "out.JSONL"])
def test_unknown_suffix_is_exit_2_before_anything_runs(agents: Path, tmp_path, name) -> None:
    data = tmp_path / "data"
    result = seed_run(agents, data, "--export", str(tmp_path / name))
    assert result.returncode == 2
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert "--export" in result.stderr and ".json, .csv, .md, .xml or .html" in result.stderr
    assert not (agents / "calls.log").exists()
    assert not (data / DB_NAME).exists()


def test_missing_export_folder_is_exit_2_before_anything_runs(agents: Path, tmp_path) -> None:
    result = seed_run(agents, tmp_path / "data", "--export", str(tmp_path / "no" / "x.csv"))
    assert result.returncode == 2 and "no such folder" in result.stderr
    assert not (agents / "calls.log").exists()


def stored_with(
    scripts: dict[str, str],
    settings: Settings,
    status: str = "done",
    output: object = "x",
) -> StoredEvaluation:
    """An evaluation in the store whose cases ran as scripted (P passed, W wrong, E errored)."""
    names = list(scripts)
    cases = [Case(n, {"q": n}, None, None) for n in names]
    letters = {"P": Outcome.PASSED, "W": Outcome.WRONG, "E": Outcome.ERRORED}
    records = [
        AttemptRecord(
            i,
            name,
            a + 1,
            f"ev_t/h/{i}/{a + 1}",
            letters[ch],
            "completed" if ch != "E" else "failed",
            output,
            "expected y" if ch == "W" else None,
            "the tool crashed" if ch == "E" else None,
            None,
            None,
            10.0,
            11.0 + a,
        )
        for i, name in enumerate(names)
        for a, ch in enumerate(scripts[name])
    ]
    with Store.open() as store:
        store.create_evaluation("ev_t", settings, cases, "h", created=0.0)
        store.write("ev_t", records)
        store.finish("ev_t", status)
        return store.load("ev_t")


def tricky() -> StoredEvaluation:
    names = ['pipe | and "quotes", commas', "ünïcode <xml> & more", "n\\back"]
    scripts = dict(zip(names, ("PPWEP", "WWWWE", "PPPPP"), strict=True))
    settings = Settings("bot", 2, "/tmp/c.toml", attempts=5, k=2, require=Fraction(2, 3))
    return stored_with(scripts, settings)


def test_awkward_names_survive_every_format(tmp_path: Path) -> None:
    stored = tricky()
    report = build_report(stored)
    figures = stored.figures()
    assert figures_of_json(json.loads(render_json(report))) == figures
    assert figures_of_csv(render_csv(report), 2, 5) == figures
    assert md_table(render_md(report)) == table_rows(figures, 2, report.reading, pass_hat=True)
    suite = junit(render_junit(report))
    assert [c.get("name") for c in suite.findall("testcase")] == [f.name for f in figures]
    # pass@2: 3/5 -> 0.9, 0/5 -> 0, 5/5 -> 1; the gate is 2/3.
    assert list(red(suite)) == ["ünïcode <xml> & more"]
    path = export(stored, tmp_path / "t.md")
    assert path.read_text() == render_md(report)
    assert [p.name for p in tmp_path.iterdir()] == ["t.md"]  # no temp file left behind


def test_junit_keeps_errored_apart_from_wrong() -> None:
    """A case failing mostly by errored attempts is an <error>, counted in errors=."""
    settings = Settings("bot", 1, "/tmp/c.toml", attempts=4, k=1, require=Fraction(1, 2))
    stored = stored_with({"tool": "EEEE", "answer": "WWWE", "fine": "PPPP"}, settings)
    suite = junit(render_junit(build_report(stored)))
    got = red(suite)
    assert got["tool"][0] == "error" and got["answer"][0] == "failure" and "fine" not in got
    assert suite.get("errors") == "1" and suite.get("failures") == "1"
    [tool] = [c for c in suite.findall("testcase") if c.get("name") == "tool"]
    assert tool.find("error").text == "attempt 1 errored (failed): 'the tool crashed'"


def test_a_partial_evaluation_exports_undefined_figures_as_null_and_dash() -> None:
    settings = Settings("bot", 1, "/tmp/c.toml", attempts=5, k=3, require=Fraction(1, 2))
    stored = stored_with({"one-in": "P", "none-in": "", "all-in": "PPPPP"}, settings, "cancelled")
    report = build_report(stored, 0.9)
    document = json.loads(render_json(report))
    one = document["cases"][0]
    assert one["figures"]["pass_at_k"] is None and one["figures"]["pass_hat_k"] is None
    assert one["figures"]["all_passed"] is None and one["figures"]["pass_at_1"] == 1.0
    assert one["intervals"]["pass_at_k"] is None and one["intervals"]["pass_at_1"] is not None
    assert document["cases"][1]["figures"]["pass_at_1"] is None
    assert document["intervals"]["level"] == 0.9
    assert figures_of_json(document) == stored.figures()
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    assert [rows[0][c] for c in ("pass@3", "pass@3 low", "pass^3", "all_passed")] == ["-"] * 4
    assert rows[2]["all_passed"] == "yes"
    table = md_table(render_md(report))
    assert table[1][5:8] == ("-", "-", "-")  # pass@3, pass^3, all passed of "one-in"
    assert table[1][8] == "-" and table[0][8] == "pass@3 90% CI"


def test_an_answer_nested_950_deep_exports_in_every_format(tmp_path: Path) -> None:
    """Through the store and every format: no RecursionError, the answer comes back whole.

    Run on a thread of its own, so the depth is the product's, not the test runner's
    (pytest-xdist's worker stands some frames deeper than a plain run)."""
    failure: list[BaseException] = []

    def body() -> None:
        try:
            _export_950_deep(tmp_path)
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def _export_950_deep(tmp_path: Path) -> None:
    deep: object = "bottom"
    for _ in range(950):
        deep = [deep]
    settings = Settings("bot", 1, "/tmp/c.toml", attempts=2, k=1)
    stored = stored_with({"deep": "WP"}, settings, output=deep)
    for suffix in ("json", "csv", "md", "xml"):
        export(stored, tmp_path / f"deep.{suffix}")
    document = json.loads((tmp_path / "deep.json").read_text())
    got = document["attempts"][0]["output"]
    for _ in range(950):
        [got] = got
    assert got == "bottom"
    assert "bottom" in (tmp_path / "deep.xml").read_text()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_export_files_honour_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    stored = tricky()
    old = os.umask(umask)
    try:
        path = export(stored, tmp_path / "t.csv")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == mode


def test_a_failed_write_leaves_no_temp_file(tmp_path: Path, monkeypatch) -> None:
    def full_disk(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(ExportError, match="No space left on device") as raised:
        export(tricky(), tmp_path / "t.json")
    assert str(raised.value).count("\n") == 0
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("gate", "code"), [((), 5), (("--require", "0.9"), 1)])
def test_a_failed_export_after_the_run_keeps_the_results(
    agents: Path, tmp_path: Path, gate: tuple[str, ...], code: int
) -> None:
    """The table and the gate come first; the export's failure is one line; exit as the gate says."""
    target = tmp_path / "out.json"
    target.mkdir()  # passes the up-front check, fails at the rename
    result = seed_run(agents, tmp_path / "data", *gate, "--export", str(target))
    assert result.returncode == code
    assert result.stdout.startswith("case        passed")
    lines = result.stderr.splitlines()
    assert lines[-1].startswith(f"passk-tui: export failed: --export {target}: cannot write")
    if gate:
        assert lines[-2] == (
            "passk-tui: gate: json-shape: pass@3 0.00, 1 of 5 errored, is below --require 0.9"
        )
    assert list(tmp_path.glob(".out.json*")) == [] and list(target.iterdir()) == []


# -- --export given again: each one written -------------------------------------------------


def in_folder(
    tmp_path: Path, *args: str, headless: bool = True
) -> subprocess.CompletedProcess[str]:
    """passk-tui run in ``tmp_path`` (relative export paths land there), its store in data/."""
    env = environment(tmp_path / "data", PYTHONPATH=str(ROOT))
    return run(*args, env=env, cwd=tmp_path, headless=headless)


def demo(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return in_folder(tmp_path, "--demo", "--attempts", "2", *args)


def test_each_export_given_is_written_and_one_that_fails_costs_only_itself(
    tmp_path: Path,
) -> None:
    (tmp_path / "taken.md").mkdir()  # its folder exists, but no file can be written there
    names = ["a.json", "b.csv", "taken.md", "c.xml", "d.html"]
    result = demo(tmp_path, *(f"--export={name}" for name in names))
    assert result.returncode == 5, result.stderr  # no gate: only an export failed
    said = result.stderr.splitlines()
    written = [line.removeprefix("passk-tui: wrote ") for line in said if "wrote" in line]
    assert written == ["a.json", "b.csv", "c.xml", "d.html"]
    assert sum(line.startswith("passk-tui: export failed: ") for line in said) == 1
    assert json.loads((tmp_path / "a.json").read_text())["cases"]
    assert (tmp_path / "b.csv").read_text().startswith("case,")
    assert ET.parse(tmp_path / "c.xml").getroot().tag == "testsuites"
    assert (tmp_path / "d.html").read_text().startswith("<!DOCTYPE html>")


def test_a_bad_export_among_several_is_refused_before_anything_runs(tmp_path: Path) -> None:
    result = demo(tmp_path, "--export", "a.json", "--export", "b.txt")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("passk-tui: --export b.txt: the format follows the suffix")
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "data").exists()


def test_a_baseline_run_and_compare_write_each_export(tmp_path: Path) -> None:
    result = demo(
        tmp_path, "--version", "2", "--baseline", "1", "--export", "p.json", "--export", "p.md"
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.endswith("passk-tui: wrote p.json\npassk-tui: wrote p.md\n")
    assert json.loads((tmp_path / "p.json").read_text())["cases"]
    assert (tmp_path / "p.md").read_text().strip()
    compared = in_folder(
        tmp_path, "compare", "last~1", "last", "--export", "q.json", "--export", "q.html",
        headless=False,
    )  # fmt: skip
    assert compared.returncode == 0, compared.stderr
    assert json.loads((tmp_path / "q.json").read_text())["cases"]
    assert "<html" in (tmp_path / "q.html").read_text()
