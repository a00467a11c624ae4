"""``evaluate()`` beyond one run: a baseline beside it, an export, a stop by Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import passk_tui
from passk_tui import Case
from passk_tui.store import Store
from tests.api.test_evaluate import SEED, scripted
from tests.support.cli import run

#: Two versions of a local agent: version 1 answers "no", version 2 "yes".
TWO_VERSIONS = """\
[agents.bot.versions.1]
command = ["python3", "-c", "print('no')"]
[agents.bot.versions.2]
command = ["python3", "-c", "print('yes')"]
"""


def test_a_baseline_runs_beside_and_is_compared(tmp_path: Path) -> None:
    agents = tmp_path / "agents.toml"
    agents.write_text(TWO_VERSIONS)
    cases = [Case("answer", "?", {"equals": "yes"})]
    result = passk_tui.evaluate("bot", cases=cases, version=2, baseline=1, agents=agents,
                                attempts=6, k=1)  # fmt: skip
    assert result.baseline is not None
    assert (result.version, result.cases[0].passed) == (2, 6)
    assert (result.baseline.version, result.baseline.cases[0].passed) == (1, 0)
    comparison = result.comparison() or ""
    assert comparison.splitlines()[2].split()[-1] == "improved"
    shown = run("compare", result.baseline.id, result.id, headless=False)
    assert shown.stdout.startswith(comparison)


def test_a_callable_has_no_baseline() -> None:
    with pytest.raises(passk_tui.InputError, match=r"^baseline: a Python callable has no other"):
        passk_tui.evaluate(scripted, cases=SEED, baseline=1)


def test_export_writes_the_format_its_suffix_names(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = passk_tui.evaluate(scripted, cases=SEED, export=out, store=False)
    exported = json.loads(out.read_text())
    assert exported["evaluation"]["id"] == result.id
    assert exported["evaluation"]["agent_definition"] == {
        "kind": "python",
        "callable": "tests.api.test_evaluate.scripted",
    }
    with pytest.raises(passk_tui.InputError, match=r"out\.txt"):
        passk_tui.evaluate(scripted, cases=SEED, export=tmp_path / "out.txt")


#: Blocks from attempt 3 on (after saying so in a file) until Ctrl-C has been handled.
BLOCKED = """
import pathlib, sys, threading
import passk_tui
from passk_tui import Case

release = threading.Event()
blocked = []
lock = threading.Lock()

def agent(text, attempt):
    if attempt >= 3:
        with lock:
            blocked.append(attempt)
            if len(blocked) == 2:  # both slots held here: attempts 1 and 2 are done and kept
                pathlib.Path(sys.argv[1]).touch()
        release.wait(120)
    return text

if sys.argv[2:] == ["resume"]:  # the same callable again: only it may run the attempts left
    release.set()
    print(passk_tui.evaluate(agent, resume="last").cases[0].passed)
    sys.exit()
try:
    passk_tui.evaluate(agent, cases=[Case("c", "x", {"equals": "x"})], attempts=6, concurrency=2)
except KeyboardInterrupt:
    release.set()
    print("interrupted")
"""


def test_ctrl_c_withdraws_the_attempts_in_flight_and_a_resume_finishes(tmp_path: Path) -> None:
    started = tmp_path / "started"
    script = tmp_path / "blocked.py"
    script.write_text(BLOCKED)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(started)], cwd=tmp_path, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    while not started.exists() and proc.poll() is None:
        os.sched_yield()
    os.kill(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert (proc.returncode, out) == (0, "interrupted\n")
    (row,) = Store.open().list_evaluations()
    assert row.status == "cancelled"
    stored = Store.open().load(row.id)
    assert [r.attempt for r in stored.records] == [1, 2]
    assert stored.withdrawn and all(r.attempt >= 3 for r in stored.withdrawn)
    resumed = subprocess.run(
        [sys.executable, str(script), str(started), "resume"], cwd=tmp_path,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert resumed.stdout == "6\n", resumed.stderr


def test_a_budget_of_runs_stops_starting_attempts() -> None:
    cases = [Case("c", "x", {"equals": "x"})]
    result = passk_tui.evaluate(lambda text: text, cases=cases, attempts=6, k=1, budget_runs=4,
                                concurrency=1)  # fmt: skip
    assert result.cases[0].attempts == 4


def test_a_callables_budget_of_money_needs_its_prices() -> None:
    cases = [Case("c", "x", {"equals": "x"})]
    with pytest.raises(
        passk_tui.InputError,
        match=r"^budget_cost: needs prices: give '<lambda>' version 0 a price in the agents file, or price_in and price_out$",
    ):
        passk_tui.evaluate(lambda text: text, cases=cases, budget_cost=1)


def test_family_wise_is_the_whole_suites_gate_and_kept_by_a_resume() -> None:
    cases = [Case(f"c{i}", "x", {"equals": "x"}) for i in range(3)]
    result = passk_tui.evaluate(lambda text: text, cases=cases, attempts=4, k=1, require=0.5,
                                confidence=0.9, family_wise=True)  # fmt: skip
    assert result.gate == "undecided"
    again = passk_tui.evaluate(lambda text: text, resume=result.id, attempts=6, family_wise=True,
                               name="<lambda>")  # fmt: skip
    assert [case.attempts for case in again.cases] == [6, 6, 6]
    with pytest.raises(
        passk_tui.InputError, match=r"^family_wise: needs require and confidence \(it makes"
    ):
        passk_tui.evaluate(lambda text: text, cases=cases, family_wise=True)


def test_a_notebook_may_show_the_same_evaluation_again_and_again() -> None:
    made = passk_tui.evaluate(scripted, cases=SEED)
    for _ in range(3):  # each call lets go of its claim: none is "running" in another
        shown = passk_tui.evaluate(scripted, resume=made.id)
        assert shown.id == made.id and shown.table() == made.table()
    (row,) = Store.open().list_evaluations()
    assert row.status == "done"
