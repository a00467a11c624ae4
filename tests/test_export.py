"""Exports: each format parses back to the same figures; the JUnit file has the JUnit shape."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.cases import Case
from passk_tui.core.figures import CaseFigures
from passk_tui.core.settings import Settings
from passk_tui.core.table import table_rows
from passk_tui.store import DB_NAME, Store, StoredEvaluation
from passk_tui.store.export import export, render_csv, render_json, render_junit, render_md

AGENTS = Path(__file__).parent / "cli_agents"
SEED = [
    CaseFigures("arithmetic", 5, 3, 2, 0, 3),
    CaseFigures("json-shape", 5, 0, 4, 1, 3),
    CaseFigures("summary", 5, 5, 0, 0, 3),
]


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    folder = tmp_path / "agents"
    shutil.copytree(AGENTS, folder)
    return folder


def seed_run(agents: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    env["PASSK_DATA_DIR"] = str(data)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "passk_tui",
            "--headless",
            "--agents",
            str(agents / "agents.toml"),
            "--agent",
            "scripted",
            "--version",
            "1",
            "--cases",
            str(agents / "seed.toml"),
            "--concurrency",
            "3",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def figures_of_json(document: dict) -> list[CaseFigures]:
    k = document["evaluation"]["k"]
    out = []
    for case in document["cases"]:
        f = case["figures"]
        figures = CaseFigures(case["name"], f["attempts"], f["passed"], f["wrong"], f["errored"], k)
        assert f["pass_at_1"] == float(figures.pass_at_1)
        assert f["pass_at_k"] == float(figures.pass_at_k)
        assert f["pass_hat_k"] == float(figures.pass_hat_k)
        assert Fraction(f["exact"]["pass_at_k"]) == figures.pass_at_k
        assert f["all_passed"] == figures.all_passed
        out.append(figures)
    return out


def figures_of_csv(text: str, k: int) -> list[CaseFigures]:
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
        )
        assert float(row["pass@1"]) == float(figures.pass_at_1)
        assert float(row[f"pass@{k}"]) == float(figures.pass_at_k)
        assert float(row[f"pass^{k}"]) == float(figures.pass_hat_k)
        assert row["all_passed"] == ("yes" if figures.all_passed else "no")
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
    root = ET.fromstring(text.encode())
    assert root.tag == "testsuites"
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    for element in (root, suite):
        assert int(element.get("tests")) == len(cases)
        assert int(element.get("failures")) == len(failures)
        assert element.get("errors") == "0"
        float(element.get("time"))
    for case in cases:
        assert case.get("classname") and case.get("name")
        float(case.get("time"))
        assert set(child.tag for child in case) <= {"failure", "skipped", "system-out"}
    return suite


def test_every_format_round_trips_the_seed_figures(agents: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    outputs = {}
    for suffix in ("json", "csv", "md", "xml"):
        out = tmp_path / f"seed.{suffix}"
        result = seed_run(agents, data, "--require", "0.9", "--export", str(out))
        assert result.returncode == 1, result.stderr  # json-shape is under the gate
        shutil.rmtree(agents / "state")  # the scripted agent starts its scripts over
        outputs[suffix] = out.read_text()

    document = json.loads(outputs["json"])
    assert figures_of_json(document) == SEED
    assert document["gate"] == {"require": "0.9", "held": False, "under": ["json-shape"]}
    assert document["evaluation"]["status"] == "done"
    attempts = document["attempts"]
    assert len(attempts) == 15
    assert {(a["case"], a["attempt"]) for a in attempts} == {
        (c.name, n) for c in SEED for n in range(1, 6)
    }
    assert all(a["key"].startswith(document["evaluation"]["id"]) for a in attempts)

    assert figures_of_csv(outputs["csv"], 3) == SEED

    assert md_table(outputs["md"]) == table_rows(SEED, 3)
    assert "**Gate failed**" in outputs["md"] and "`json-shape` (0.00)" in outputs["md"]

    suite = junit(outputs["xml"])
    verdicts = {c.get("name"): c.find("failure") for c in suite.findall("testcase")}
    assert list(verdicts) == ["arithmetic", "json-shape", "summary"]
    assert verdicts["arithmetic"] is None and verdicts["summary"] is None
    message = verdicts["json-shape"].get("message")
    assert message == (
        "pass@3 0.00 is below --require 0.9: 0 passed, 4 wrong, 1 errored of 5 attempts"
    )


def test_junit_without_a_gate_fails_every_case_not_all_passed(agents: Path, tmp_path) -> None:
    out = tmp_path / "seed.xml"
    result = seed_run(agents, tmp_path / "data", "--export", str(out))
    assert result.returncode == 0, result.stderr
    suite = junit(out.read_text())
    failing = {
        c.get("name"): c.find("failure").get("message")
        for c in suite.findall("testcase")
        if c.find("failure") is not None
    }
    assert failing == {
        "arithmetic": "not every attempt passed: 3 passed, 2 wrong, 0 errored of 5 attempts",
        "json-shape": "not every attempt passed: 0 passed, 4 wrong, 1 errored of 5 attempts",
    }


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


def tricky() -> StoredEvaluation:
    names = ['pipe | and "quotes", commas', "ünïcode <xml> & more", "n\\back"]
    cases = [Case(n, {"q": n}, None, None) for n in names]
    outcomes = {0: "PPWEP", 1: "WWWWE", 2: "PPPPP"}
    letters = {"P": Outcome.PASSED, "W": Outcome.WRONG, "E": Outcome.ERRORED}
    records = [
        AttemptRecord(
            i,
            names[i],
            a + 1,
            f"ev_t/h/{i}/{a + 1}",
            letters[ch],
            "completed",
            "x",
            None,
            None,
            None,
            None,
            10.0,
            11.0 + a,
        )
        for i, script in outcomes.items()
        for a, ch in enumerate(script)
    ]
    settings = Settings("bot", 2, "/tmp/c.toml", attempts=5, k=2, require=Fraction(2, 3))
    with Store.open() as store:
        store.create_evaluation("ev_t", settings, cases, "h", created=0.0)
        store.write("ev_t", records)
        store.finish("ev_t", "done")
        return store.load("ev_t")


def test_awkward_names_survive_every_format(tmp_path: Path) -> None:
    stored = tricky()
    figures = stored.figures()
    assert figures_of_json(json.loads(render_json(stored))) == figures
    assert figures_of_csv(render_csv(stored), 2) == figures
    assert md_table(render_md(stored)) == table_rows(figures, 2)
    suite = junit(render_junit(stored))
    assert [c.get("name") for c in suite.findall("testcase")] == [f.name for f in figures]
    # pass@2: 3/5 -> 0.9, 0/5 -> 0, 5/5 -> 1; the gate is 2/3.
    assert [c.find("failure") is not None for c in suite.findall("testcase")] == [
        False,
        True,
        False,
    ]
    path = export(stored, tmp_path / "t.md")
    assert path.read_text() == render_md(stored)
    assert [p.name for p in tmp_path.iterdir()] == ["t.md"]  # no temp file left behind
