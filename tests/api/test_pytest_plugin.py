"""``@pytest.mark.passk``, run as a user runs it: pytest in its own process on a test file."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run
from tests.support.doc_examples import private_env

#: Each test's body passes, is wrong or errors by a counter of its own (attempts run one at a
#: time by default, so the n-th call is attempt n).
MARKED = """
import itertools
import pytest

counters = {}

def nth(name):
    return next(counters.setdefault(name, itertools.count(1)))

@pytest.mark.passk(attempts=10, k=3, require=0.8)
def test_holds():
    assert nth("holds") != 10

@pytest.mark.passk(attempts=10, k=1, require=0.9)
def test_fails():
    n = nth("fails")
    if n % 2 == 0:
        if n <= 4:
            raise AssertionError("wrong answer")
        raise ValueError("provider down")

@pytest.mark.passk(attempts=10, k=1, require=0.5, confidence=0.95)
def test_undecided():
    assert nth("undecided") <= 6

@pytest.mark.passk(attempts=3, k=1)
def test_reports():
    raise RuntimeError("no gate: reported only")
"""

#: Plugins of this environment the tests here do not use, left out to start pytest faster
#: (hypothesis alone takes seconds to import, its modules rewritten for asserts).
QUIETER = ["-p", "no:hypothesispytest", "-p", "no:textual-snapshot", "-p", "no:syrupy"]


#: The JUnit suite's properties that say what pytest said of the whole session.
SUITE = ("require", "gate", "exit status")


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in its own process in ``folder``, the store in ``folder``/data."""
    env = private_env(folder / "data")
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    env["COLUMNS"] = "120"
    return subprocess.run(
        [sys.executable, "-m", "pytest", *QUIETER, "-rA", *args],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def plugin_session(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest_in`` with the plugin found: where passk-tui is not installed (its pytest11
    entry point missing) it is named with -p and the tree put on PYTHONPATH, as an installed
    one would be found."""
    installed = any(e.name == "passk" for e in entry_points(group="pytest11"))
    plugin = () if installed else ("-p", "passk_tui.api.pytest_plugin")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(Path(__file__).parents[2]))
        return pytest_in(folder, *plugin, *args)


def reported_attempts(folder: Path, name: str, text: str) -> list[dict[str, Any]]:
    """The attempts of a session of the marked tests ``text`` (the file ``name``), exported;
    with no gate they only report, and pytest passes."""
    (folder / name).write_text(text)
    done = plugin_session(folder, "--passk-export", "out.json")
    assert done.returncode == 0, done.stdout + done.stderr
    return list(json.loads((folder / "out.json").read_text())["attempts"])


def outcomes(output: str) -> dict[str, str]:
    """Each test's outcome, from the short summary (``-rA``)."""
    found = {}
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR") and "::" in rest:
            found[rest.split(" ")[0].split("::")[1]] = word
    return found


def summary(output: str) -> list[str]:
    """The lines of the terminal summary's passk section."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if " passk " in line and line.startswith("="))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    return lines[start + 1 : end]


def stored(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(*args, data=folder / "data", headless=args[0] not in ("history", "compare"))


def test_the_gate_decides_each_marked_tests_outcome(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(MARKED)
    done = pytest_in(tmp_path, "test_marked.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert outcomes(done.stdout) == {
        "test_holds": "PASSED",
        "test_fails": "FAILED",
        "test_undecided": "FAILED",
        "test_reports": "PASSED",
    }
    assert (
        "gate: test_marked.py::test_fails: pass@1 0.50, 3 of 10 errored, is below --require 0.9"
    ) in done.stdout
    assert (
        "gate: test_marked.py::test_undecided: undecided: pass@1 95% CI 0.26-0.88, 0 of 10 "
        "errored, includes --require 0.5 (about 286 more attempts would decide it half the time)"
    ) in done.stdout
    table = summary(done.stdout)
    # One table per way the tests are read: each row under its own k, with its own gate.
    assert [line for line in table if line.endswith(":")] == [
        "k=3, require=0.8:",
        "k=1, require=0.9:",
        "k=1, require=0.5, confidence=0.95:",
        "k=1:",
    ]
    assert table[1].split()[4:6] == ["pass@1", "pass@3"]
    rows = [line.split() for line in table if "::test_" in line and " " in line.strip()]
    assert rows[:4] == [
        ["test_marked.py::test_holds", "9/10", "1", "0", "0.90", "1.00", "no"],
        ["test_marked.py::test_fails", "5/10", "2", "3", "0.50", "0.50", "no"],
        ["test_marked.py::test_undecided", "6/10", "4", "0", "0.60", "0.60", "no", "0.26-0.88",
         "undecided"],
        ["test_marked.py::test_reports", "0/3", "0", "3", "0.00", "0.00", "no"],
    ]  # fmt: skip
    evaluation_id = table[-1].split()[3]
    assert table[-1] == (
        f"stored as evaluation {evaluation_id} ({tmp_path.name} v0): "
        f"passk-tui --resume {evaluation_id} shows it"
    )
    shown = stored(tmp_path, "--resume", evaluation_id)
    assert shown.returncode == 0, shown.stderr
    assert [line.split()[:2] for line in shown.stdout.splitlines()[2:]] == [
        ["test_marked.py::test_holds", "9/10"],
        ["test_marked.py::test_fails", "5/10"],
        ["test_marked.py::test_undecided", "6/10"],
        ["test_marked.py::test_reports", "0/3"],
    ]


def test_every_export_says_what_pytest_said_of_each_test(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(MARKED)
    for name in ("out.xml", "out.json", "out.md", "out.csv", "out.html"):
        done = pytest_in(tmp_path, "test_marked.py", "--passk-export", name)
        assert outcomes(done.stdout) == {
            "test_holds": "PASSED",
            "test_fails": "FAILED",
            "test_undecided": "FAILED",
            "test_reports": "PASSED",
        }
    # Before: the tests' gates differ, so the stored evaluation had none, and every export
    # said so (failures="0", gate null) while pytest failed two tests.
    junit = ET.parse(tmp_path / "out.xml").getroot()
    red = {
        case.get("name"): [child.tag for child in case if child.tag in ("failure", "error")]
        for case in junit.iter("testcase")
    }
    assert red == {
        "test_marked.py::test_holds": [],
        "test_marked.py::test_fails": ["error"],  # more of it errored than was wrong
        "test_marked.py::test_undecided": ["failure"],
        "test_marked.py::test_reports": [],
    }
    assert (junit.get("failures"), junit.get("errors")) == ("1", "1")
    suite = junit.find("testsuite")
    assert suite is not None
    said = {
        p.get("name"): p.get("value")
        for p in suite.findall("properties/property")
        if p.get("name") in SUITE
    }
    # Before: the tests' gates differ, so the suite said require "" gate "none"; and an
    # undecided test gave exit status 4 where pytest exits 1.
    assert said == {"require": "per test", "gate": "per test", "exit status": "1"}
    holds = next(c for c in junit.iter("testcase") if c.get("name").endswith("holds"))
    properties = {p.get("name"): p.get("value") for p in holds.iter("property")}
    assert (properties["k"], properties["require"], properties["pass@3"]) == ("3", "0.8", "1.00")
    exported = json.loads((tmp_path / "out.json").read_text())
    assert [(c["gate"], (c.get("own_gate") or {}).get("k")) for c in exported["cases"]] == [
        ("pass", 3), ("fail", 1), ("undecided", 1), (None, 1),
    ]  # fmt: skip
    assert exported["cases"][2]["own_gate"]["kind"] == "confident"
    assert {k: exported["gate"][k] for k in ("require", "held", "exit_status")} == {
        "require": "per test", "held": False, "exit_status": 1,
    }  # fmt: skip
    md = (tmp_path / "out.md").read_text()
    assert "**Gate failed**: `test\\_marked.py::test\\_fails`: pass@1 0.50, `require=0.9`." in md
    assert "**Gate undecided**: `test\\_marked.py::test\\_undecided`: pass@1 95% CI" in md
    assert "Gate held" not in md
    # Before: the .md, .csv and .html tables headed pass@k with the session's smallest k (1),
    # so test_holds (k=3) showed its pass@1 under "pass@1" twice and no pass@3 anywhere.
    assert "**k=3, require=0.8**" in md and "**k=1, require=0.5, confidence=0.95**" in md
    holds_table = md.split("**k=3, require=0.8**")[1].split("**k=1")[0]
    assert "| pass@3 |" in holds_table
    assert "| test\\_marked.py::test\\_holds | 9/10 | 1 | 0 | 0.90 | 1.00 |" in holds_table
    rows = list(csv.DictReader((tmp_path / "out.csv").read_text().splitlines()))
    assert [(r["case"], r["k"], r["pass@k"], r["gate"]) for r in rows] == [
        ("test_marked.py::test_holds", "3", "1.00", "pass"),
        ("test_marked.py::test_fails", "1", "0.50", "fail"),
        ("test_marked.py::test_undecided", "1", "0.60", "undecided"),
        ("test_marked.py::test_reports", "1", "0.00", "-"),
    ]
    html = (tmp_path / "out.html").read_text()
    assert "<h3>k=3, require=0.8</h3>" in html and "<th>pass@3<br>" in html
    assert "<b>k=1, require=0.9</b>: Gate failed: pass@1 below" in html
    assert "33 attempts recorded, each test its own number" in html  # before: "33 of 12"


def test_agent_version_and_export_of_the_session(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(MARKED)
    args = ["test_marked.py", "-k", "holds or reports", "--passk-agent", "bot"]
    done = pytest_in(tmp_path, *args, "--passk-version", "7", "--passk-export", "out.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary(done.stdout)[-1] == f"wrote {tmp_path / 'out.json'}"
    exported = json.loads((tmp_path / "out.json").read_text())
    assert [case["name"] for case in exported["cases"]] == [
        "test_marked.py::test_holds",
        "test_marked.py::test_reports",
    ]
    errors = {a["error"] for a in exported["attempts"] if a["outcome"] == "errored"}
    assert errors == {"RuntimeError: no gate: reported only"}
    listed = stored(tmp_path, "history")
    (row,) = [line.split() for line in listed.stdout.splitlines()[2:]]
    assert row[3:6] == ["bot", "7", "2"]


def test_x_stops_at_the_first_failing_gate_and_stores_what_ran(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(MARKED)
    done = pytest_in(tmp_path, "test_marked.py", "-x", "-k", "fails or undecided")
    assert outcomes(done.stdout) == {"test_fails": "FAILED"}
    assert [line.split()[0] for line in summary(done.stdout)[2:-1]] == [
        "test_marked.py::test_fails"
    ]


def test_last_failed_runs_only_the_failed_marked_tests(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(MARKED)
    pytest_in(tmp_path, "test_marked.py", "-p", "cacheprovider")
    again = pytest_in(tmp_path, "test_marked.py", "-p", "cacheprovider", "--lf")
    assert outcomes(again.stdout) == {"test_fails": "FAILED", "test_undecided": "FAILED"}
    assert len(summary(again.stdout)) == 2 * (1 + 2 + 1) + 1  # two ways of reading, a row each


def test_each_xdist_worker_stores_its_own_evaluation(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(MARKED)
    done = pytest_in(tmp_path, "test_marked.py", "-n", "2", "-k", "holds or reports")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = stored(tmp_path, "history").stdout.splitlines()[2:]
    assert sum(int(row.split()[5]) for row in listed) == 2  # each test in one evaluation
    shown = [line.split()[0] for line in done.stdout.splitlines() if "::test_" in line]
    assert sorted(set(shown) & {"test_marked.py::test_holds", "test_marked.py::test_reports"})


def test_fixtures_are_set_up_once_per_test_and_async_bodies_run(tmp_path: Path) -> None:
    (tmp_path / "test_fixture.py").write_text(
        "import asyncio, pytest\n"
        "setups = []\n"
        "@pytest.fixture\n"
        "def resource():\n"
        "    setups.append(1)\n"
        "    return len(setups)\n"
        "@pytest.mark.passk(attempts=4, k=1)\n"
        "def test_sync(resource):\n"
        "    assert resource == 1\n"
        "@pytest.mark.passk(attempts=4, k=1, require=1)\n"
        "async def test_async():\n"
        "    await asyncio.sleep(0)\n"
    )
    done = pytest_in(tmp_path, "test_fixture.py")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split()[:2] for line in summary(done.stdout) if "::test_" in line]
    assert rows == [["test_fixture.py::test_sync", "4/4"], ["test_fixture.py::test_async", "4/4"]]


def test_a_session_that_marks_no_test_gets_nothing(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text(
        "import sys\n"
        "def test_nothing_of_passk_is_loaded():\n"
        "    loaded = [m for m in sys.modules if m.startswith('passk_tui')]\n"
        "    assert 'passk_tui.api.pytest_plugin' in loaded\n"
        "    assert 'passk_tui.core.run.engine' not in loaded, loaded\n"
        "    assert 'passk_tui.api.pytest_session' not in loaded, loaded\n"
    )
    done = pytest_in(tmp_path, "test_plain.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passk " not in done.stdout
    assert not (tmp_path / "data").exists()


def test_a_bad_marker_fails_its_test_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "test_bad.py").write_text(
        "import pytest\n"
        "@pytest.mark.passk(attempts=0)\n"
        "def test_zero():\n"
        "    pass\n"
        "@pytest.mark.passk(attempt=3)\n"
        "def test_typo():\n"
        "    pass\n"
    )
    done = pytest_in(tmp_path, "test_bad.py")
    assert outcomes(done.stdout) == {"test_zero": "FAILED", "test_typo": "FAILED"}
    assert "passk: --attempts: must be at least 1, got 0" in done.stdout
    assert "passk: unknown keyword 'attempt'" in done.stdout


#: Each call of a body is a line in calls.txt; with KILL set, the third call of the second test
#: kills pytest (SIGKILL: no hook, no finally runs).
KILLED = """
import os, signal, pytest

def call(name):
    with open("calls.txt", "a") as calls:
        calls.write(name + "\\n")

@pytest.mark.passk(attempts=6, k=1)
def test_first():
    call("first")

@pytest.mark.passk(attempts=6, k=1)
def test_second():
    call("second")
    with open("calls.txt") as calls:
        if os.environ.get("KILL") and calls.read().count("second") == 3:
            os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_session_loses_no_attempt_and_its_rerun_runs_only_the_missing(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_killed.py").write_text(KILLED)
    env = private_env(tmp_path / "data")
    killed = subprocess.run(
        [sys.executable, "-m", "pytest", *QUIETER, "test_killed.py"], cwd=tmp_path,
        env={**env, "KILL": "1"}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert killed.returncode == -9, killed.stdout + killed.stderr
    calls = tmp_path / "calls.txt"
    assert calls.read_text().split() == ["first"] * 6 + ["second"] * 3
    calls.unlink()
    again = pytest_in(tmp_path, "test_killed.py")
    assert again.returncode == 0, again.stdout + again.stderr
    # The six of the first test and the two finished of the second were on disk: only the
    # second test's last four (the one killed in flight among them) are paid for again.
    assert calls.read_text().split() == ["second"] * 4
    rows = [line.split()[:2] for line in summary(again.stdout)[2:4]]
    assert rows == [["test_killed.py::test_first", "6/6"], ["test_killed.py::test_second", "6/6"]]
    (row,) = [line.split() for line in stored(tmp_path, "history").stdout.splitlines()[2:]]
    assert "done" in row  # one evaluation, continued to its end
