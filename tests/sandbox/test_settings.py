"""Asking for a sandbox: the table's words, what is refused (exit 2, one line), and a limit
hit inside a real run is errored with the sandbox's reason, stored and exported."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.sandbox.limits import limit_hit
from passk_tui.core.sandbox.settings import SandboxSettings, parse_sandbox
from tests.support.cli import environment, run

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
PY = sys.executable


@needs_bwrap
def test_true_means_the_defaults_and_a_table_sets_each_wall(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    assert parse_sandbox(True, "w", tmp_path) == SandboxSettings()
    assert parse_sandbox(False, "w", tmp_path) is None
    table = {
        "network": True,
        "memory_mb": 64,
        "cpu_seconds": 3,
        "processes": 8,
        "writable": ["out"],
    }
    assert parse_sandbox(table, "w", tmp_path) == SandboxSettings(True, 64, 3, 8, ("out",))


@needs_bwrap
@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("yes", "w: sandbox must be true, false or a table, got string"),
        ({"memory": 5}, "w: sandbox: unknown key 'memory' (expected: network, memory_mb, "
         "cpu_seconds, processes, writable)"),
        ({"memory_mb": 0}, "w: sandbox: memory_mb must be a whole number of at least 1"),
        ({"processes": True}, "w: sandbox: processes must be a whole number of at least 1"),
        ({"network": 1}, "w: sandbox: network must be true or false"),
        ({"writable": ["../up"]}, "w: sandbox: writable '../up' must be a folder inside the working folder"),
        ({"writable": ["/etc"]}, "w: sandbox: writable '/etc' must be a folder inside the working folder"),
        ({"writable": ["nope"]}, "w: sandbox: writable folder 'nope' is not a folder in {folder}"),
    ],
)  # fmt: skip
def test_a_bad_sandbox_table_is_one_line_naming_the_key(
    tmp_path: Path, value: object, said: str
) -> None:
    with pytest.raises(InputError) as raised:
        parse_sandbox(value, "w", tmp_path)
    assert str(raised.value) == said.format(folder=tmp_path)


@needs_bwrap
def test_a_writable_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "out").symlink_to(tmp_path)  # bound writable, it would be the host's
    with pytest.raises(InputError, match="writable folder 'out' is not a folder in"):
        parse_sandbox({"writable": ["out"]}, "w", tmp_path / "folder")


def test_how_a_limit_shows_itself() -> None:
    assert limit_hit(152, b"") == "sandbox: cpu limit"  # SIGXCPU
    assert limit_hit(1, b"Traceback...\nMemoryError\n") == "sandbox: memory limit"
    assert limit_hit(1, b"BlockingIOError: [Errno 11] Resource temporarily unavailable") == (
        "sandbox: process limit"
    )
    assert limit_hit(1, b"bwrap: Can't find source path /x: No such file") == (
        "sandbox: could not start: Can't find source path /x: No such file"
    )
    assert limit_hit(1, b"AssertionError") is None  # a failing test is the answer's
    assert limit_hit(0, b"MemoryError") is None  # it ended well, whatever it printed


def _project(tmp_path: Path, check_sandbox: str = "true") -> Path:
    (tmp_path / "agents.toml").write_text(
        "[agents.a.versions.1]\n"
        f'command = [{json.dumps(PY)}, "-c", "import sys; print(sys.stdin.read())"]\n'
    )
    (tmp_path / "cases.toml").write_text(
        '[[cases]]\nname = "greedy"\ninput = "bytearray(8 << 30)"\n'
        f'check = {{ command = [{json.dumps(PY)}, "-c", "exec(input())"], sandbox = {check_sandbox} }}\n'
        '[[cases]]\nname = "fine"\ninput = "print(1)"\n'
        f'check = {{ command = [{json.dumps(PY)}, "-c", "exec(input())"], sandbox = {check_sandbox} }}\n'
    )
    return tmp_path


@needs_bwrap
def test_a_limit_hit_by_a_check_errors_the_attempt_with_its_reason(tmp_path: Path) -> None:
    _project(tmp_path)
    result = run(
        "--agent", "a", "--version", "1", "--cases", "cases.toml", "--attempts", "2",
        "--k", "1", "--export", "out.json", cwd=tmp_path, data=tmp_path / "data",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    attempts = json.loads((tmp_path / "out.json").read_text())["attempts"]
    by_case = {(a["case"], a["outcome"]) for a in attempts}
    assert by_case == {("greedy", "errored"), ("fine", "passed")}
    errors = {a["error"].split(": ")[0] + ": " + a["error"].split(": ")[1] for a in attempts
              if a["outcome"] == "errored"}  # fmt: skip
    assert errors == {"sandbox: memory limit"}


def test_a_sandbox_without_bubblewrap_is_exit_2_naming_the_package(tmp_path: Path) -> None:
    _project(tmp_path)
    bare = tmp_path / "bin"
    bare.mkdir()
    os.symlink(PY, bare / "python3")
    result = run(
        "--agent", "a", "--version", "1", "--cases", "cases.toml",
        cwd=tmp_path, data=tmp_path / "data",
        env=environment(tmp_path / "data", PATH=str(bare)),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "passk-tui: cases.toml: line 4: case 'greedy': check: sandbox: bubblewrap (bwrap) is "
        "not installed: install the package 'bubblewrap'"
    ]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("cpus = 0", "cpus must be a number above 0 (CPUs per attempt on Ray)"),
        ("cpus = true", "cpus must be a number above 0 (CPUs per attempt on Ray)"),
        ("sandbox = 1", "sandbox must be true, false or a table, got integer"),
    ],
)
def test_an_agents_cpus_and_sandbox_are_checked(tmp_path: Path, line: str, said: str) -> None:
    from passk_tui.targets.agents_file import load_agents

    path = tmp_path / "agents.toml"
    path.write_text(f'[agents.a.versions.1]\ncommand = ["x"]\n{line}\n')
    with pytest.raises(InputError) as raised:
        load_agents(path)
    assert str(raised.value) == f"{path}: agent 'a' version 1: {said}"


def test_cpus_and_sandbox_go_only_with_command(tmp_path: Path) -> None:
    from passk_tui.targets.agents_file import load_agents

    path = tmp_path / "agents.toml"
    path.write_text(
        '[agents.a.versions.1]\nopenai = { base_url = "http://127.0.0.1:1/v1", model = "m" }\n'
        "cpus = 2\n"
    )
    with pytest.raises(InputError, match="cpus goes only with command"):
        load_agents(path)
