"""Local agents and checks that cannot run are the environment's fault or bad input, never answers."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

from tests.support.cli import run


def suite(folder: Path, agents: str, check: dict | None = None, **case: object) -> list[str]:
    """An agents file and a one-case cases file in ``folder``; the flags that run them."""
    (folder / "agents.toml").write_text(agents)
    row = {"name": "greet", "input": "hi", "check": check or {"equals": "hi"}, **case}
    (folder / "cases.jsonl").write_text(json.dumps(row) + "\n")
    return ["--agent", "a", "--version", "1", "--cases", str(folder / "cases.jsonl")]


def only_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_missing_agent_program_is_exit_3_before_any_attempt(tmp_path: Path) -> None:
    flags = suite(tmp_path, '[agents.a.versions.1]\ncommand = ["no-such-agent-passk"]\n')
    result = run(*flags, cwd=tmp_path)
    assert result.returncode == 3
    assert only_line(result.stderr) == (
        "passk-tui: agents.toml: agent 'a' version 1: program not found on PATH: no-such-agent-passk"
    )
    assert result.stdout == ""


def test_an_agent_script_that_is_not_executable_is_exit_3(tmp_path: Path) -> None:
    (tmp_path / "agent.sh").write_text("#!/bin/sh\ncat\n")
    flags = suite(tmp_path, '[agents.a.versions.1]\ncommand = ["./agent.sh"]\n')
    result = run(*flags, cwd=tmp_path)
    assert result.returncode == 3
    assert only_line(result.stderr).endswith("program not executable: ./agent.sh")


def test_an_openai_endpoint_that_refuses_connections_is_exit_3(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    agents = f'[agents.a.versions.1]\nopenai = {{ base_url = "http://127.0.0.1:{port}/v1", model = "m" }}\n'
    result = run(*suite(tmp_path, agents), cwd=tmp_path)
    assert result.returncode == 3
    assert only_line(result.stderr) == (
        f"passk-tui: agents.toml: agent 'a' version 1: cannot reach http://127.0.0.1:{port}/v1: "
        "connection refused"
    )


ECHO = f'[agents.a.versions.1]\ncommand = ["{sys.executable}", "-c", "print(input())"]\n'


def test_a_check_whose_program_is_missing_is_exit_2_naming_the_case(tmp_path: Path) -> None:
    flags = suite(tmp_path, ECHO, {"command": ["no-such-checker-passk"]})
    result = run(*flags, cwd=tmp_path)
    assert result.returncode == 2
    assert only_line(result.stderr) == (
        f"passk-tui: {tmp_path / 'cases.jsonl'}: line 1: case 'greet': check: "
        "command not found on PATH: no-such-checker-passk"
    )


def test_checks_nested_too_deep_are_exit_2_in_one_line(tmp_path: Path) -> None:
    check: dict = {"equals": "hi"}
    for _ in range(200):
        check = {"all": [check]}
    result = run(*suite(tmp_path, ECHO, check), cwd=tmp_path)
    assert result.returncode == 2
    assert only_line(result.stderr).endswith("check: all/any nested more than 64 deep")


def test_a_case_timeout_overrides_the_flag(tmp_path: Path) -> None:
    slow = f'[agents.a.versions.1]\ncommand = ["{sys.executable}", "-c", "import time; time.sleep(60)"]\n'
    flags = suite(tmp_path, slow, timeout=0.5)
    result = run(*flags, "--attempts", "1", "--timeout", "300", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2].split()[:4] == ["greet", "0/1", "0", "1"]
