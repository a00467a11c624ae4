"""The headless CLI end to end: real processes, real command agents, exact output and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import CLI_AGENTS
from tests.support.cli import SEED_TABLE, run, scripted

AGENTS = CLI_AGENTS


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    """A private copy of the scripted agent, so its call counters start at zero."""
    folder = tmp_path / "agents"
    shutil.copytree(AGENTS, folder)
    return folder


def test_seed_table_exactly(agents: Path) -> None:
    result = scripted(agents, "--cases", str(agents / "seed.toml"), "--concurrency", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout == SEED_TABLE


def test_gate_names_each_failing_case(agents: Path) -> None:
    result = scripted(agents, "--cases", str(agents / "seed.toml"), "--require", "0.9")
    assert result.returncode == 1, result.stderr
    assert result.stdout == SEED_TABLE
    gate_lines = [line for line in result.stderr.splitlines() if "gate" in line]
    assert gate_lines == [
        "passk-tui: gate: json-shape: pass@3 0.00, 1 of 5 errored, is below --require 0.9"
    ]


def test_the_errored_attempts_are_said_by_their_error_after_the_table(agents: Path) -> None:
    """As the app's Errors view groups them: how many, of which kind, from which cases."""
    result = scripted(agents, "--cases", str(agents / "seed.toml"))
    assert result.stdout == SEED_TABLE
    said = result.stderr.splitlines()
    start = said.index("passk-tui: errored: 1 attempt, 1 kind of error")
    assert said[start + 1].startswith("passk-tui:   1x failed: ")
    assert said[start + 1].endswith("(json-shape x1)")


def test_gate_holds(agents: Path) -> None:
    result = scripted(agents, "--cases", str(agents / "seed.toml"), "--require", "0")
    assert result.returncode == 0, result.stderr


def test_concurrency_measured_by_the_agent(agents: Path, tmp_path: Path) -> None:
    cases = tmp_path / "slow.jsonl"
    lines = [
        json.dumps(
            {
                "name": f"c{i}",
                "input": {"answer": "x", "script": "P", "sleep": 0.15},
                "check": {"equals": "x"},
            }
        )
        for i in range(6)
    ]
    cases.write_text("\n".join(lines) + "\n")
    result = scripted(agents, "--cases", str(cases), "--attempts", "3", "--concurrency", "3")
    assert result.returncode == 0, result.stderr
    events = []
    for line in (agents / "calls.log").read_text().splitlines():
        kind, at = line.split()
        events.append((float(at), 0 if kind == "end" else 1))
    in_flight = peak = 0
    for _, start in sorted(events):
        in_flight += 1 if start else -1
        peak = max(peak, in_flight)
    assert len(events) == 2 * 18
    assert 2 <= peak <= 3


def test_completion_only(agents: Path, tmp_path: Path) -> None:
    cases = tmp_path / "open.toml"
    cases.write_text('[[cases]]\nname = "any"\ninput = { answer = "x", script = "PE" }\n')
    result = scripted(
        agents, "--cases", str(cases), "--attempts", "4", "--k", "2", "--completion-only"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2].split() == ["any", "2/4", "0", "2", "0.50", "0.83", "no"]


def test_demo_runs_with_no_setup(tmp_path: Path) -> None:
    result = run("--demo", "--attempts", "2", "--concurrency", "8", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "case",
        "passed",
        "wrong",
        "errored",
        "pass@1",
        "pass@2",
        "all",
        "passed",
    ]
    assert [line.split()[0] for line in lines[2:]] == [
        "arithmetic",
        "capital",
        "json-shape",
        "summary",
        "weather-tool",
    ]
    assert lines[2].split()[1:] == ["2/2", "0", "0", "1.00", "1.00", "yes"]


def test_the_progress_line_counts_to_what_a_run_budget_allows(tmp_path: Path) -> None:
    result = run("--demo", "--attempts", "6", "--budget-runs", "14", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # Not the plan's 30: the line stderr ends with counts the 14 Runs the budget allowed.
    line = next(line for line in result.stderr.splitlines() if " in flight " in line)
    assert line.startswith("14/≤14 attempts (Run budget)  0 in flight  "), line
    assert "budget spent: 5 cases got fewer attempts than planned" in result.stderr


def bad_cases(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


BAD_INPUT = {
    "k-over-attempts": (
        ["--attempts", "2", "--k", "3"],
        "--k: must be between 1 and the attempts (2), got 3",
    ),
    "attempts-zero": (["--attempts", "0"], "--attempts: must be at least 1, got 0"),
    "require-over-one": (["--require", "1.5"], "--require: must be between 0 and 1, got 1.5"),
    "version-not-integer": (["--version", "v2"], "--version: must be a whole number, got 'v2'"),
    "unknown-agent": (["--agent", "nobody"], "no agent 'nobody'"),
    "unknown-version": (["--version", "9"], "agent 'scripted' has no version 9"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_bad_flags(agents: Path, name: str) -> None:
    extra, message = BAD_INPUT[name]
    result = scripted(agents, "--cases", str(agents / "seed.toml"), *extra)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert message in result.stderr
    assert not (agents / "calls.log").exists()


BAD_FILES = {
    "missing": (None, "no such file"),
    "toml-syntax": ('[[cases]]\nname = "a"\ninput = "x\n', "line 3"),
    "jsonl-broken": (
        '{"name": "a", "input": "x", "check": {"equals": "x"}}\n{"name": \n',
        "line 2",
    ),
    "duplicate": (
        '[[cases]]\nname = "a"\ninput = "x"\ncheck = { equals = "x" }\n'
        '[[cases]]\nname = "a"\ninput = "y"\ncheck = { equals = "y" }\n',
        "duplicate",
    ),
    "no-input": ('[[cases]]\nname = "a"\ncheck = { equals = "x" }\n', "no input"),
    "no-check": ('[[cases]]\nname = "a"\ninput = "x"\n', "no check"),
    "unknown-check": ('[[cases]]\nname = "a"\ninput = "x"\ncheck = { equal = "x" }\n', "equal"),
    "bad-regex": ('[[cases]]\nname = "a"\ninput = "x"\ncheck = { regex = "(" }\n', "regex"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_cases_files(agents: Path, tmp_path: Path, name: str) -> None:
    text, fragment = BAD_FILES[name]
    suffix = ".jsonl" if name.startswith("jsonl") else ".toml"
    path = str(tmp_path / f"{name}{suffix}")
    if text is not None:
        path = bad_cases(tmp_path, f"{name}{suffix}", text)
    result = scripted(agents, "--cases", path)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert Path(path).name in result.stderr
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr
    assert not (agents / "calls.log").exists()


def test_help_does_not_import_textual() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from passk_tui.cli.main import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])\n"
        "assert 'textual' not in sys.modules, 'textual imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)


def test_headless_path_does_not_import_textual(agents: Path) -> None:
    code = (
        "import sys\n"
        "from passk_tui.cli.main import main\n"
        f"rc = main(['--headless', '--agents', {str(agents / 'agents.toml')!r}, '--agent', 'scripted',"
        f" '--version', '1', '--cases', {str(agents / 'seed.toml')!r}])\n"
        "assert rc == 0 and 'textual' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, capture_output=True)


def test_leaving_after_the_app_flushes_what_was_printed_and_keeps_the_status() -> None:
    code = (
        "import sys\n"
        "from passk_tui.cli.main import leave\n"
        "print('results line', end='')\n"
        "sys.stderr.write('exit message')\n"
        "leave(4)\n"
        "print('never')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30
    )
    assert (result.returncode, result.stdout, result.stderr) == (4, "results line", "exit message")
