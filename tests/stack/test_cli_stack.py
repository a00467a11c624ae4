"""The headless CLI against the test stack over real HTTP: the seed's table, faults, exit 3, deadlines."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.cli import KEY, SEED_TABLE, run
from tests.support.stack_server import StackScript, StackServer, TurnScript

SEED_CASES = """\
[[cases]]
name = "arithmetic"
input = "What is 17 * 23? Reply with the number only."
check = { equals = "391" }

[[cases]]
name = "json-shape"
input = "Return a JSON object with keys name (string) and age (integer)."
check = { json = { type = "object", required = ["name", "age"] } }

[[cases]]
name = "summary"
input = { document = "…", task = "summarize" }
check = { contains = "refund", ignore_case = true }
"""


def seed_turn(case: str, attempt: int) -> TurnScript:
    """The Turns behind the seed's table: arithmetic 3/5, json-shape 0/5 (one failed), summary 5/5."""
    if case == "arithmetic":
        return TurnScript(output="391" if attempt in (1, 3, 5) else "392", latency=0.02)
    if case == "json-shape":
        if attempt == 4:
            return TurnScript(status="failed", error="tool crashed", latency=0.02)
        return TurnScript(output={"name": "Ada"}, latency=0.02)  # a JSON answer missing "age"
    return TurnScript(output="A REFUND was issued.", latency=0.02)


@pytest.fixture
def seed_cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.toml"
    path.write_text(SEED_CASES)
    return path


def on(stack: StackServer, cases: Path, *more: str) -> list[str]:
    return ["--stack", stack.url, "--agent", "demo", "--version", "2", "--cases", str(cases), *more]


def test_seed_table_through_the_stack(make_stack, seed_cases: Path, tmp_path: Path) -> None:
    stack = make_stack(keys={KEY: None}, script=StackScript(turns=seed_turn))
    result = run(
        *on(stack, seed_cases, "--concurrency", "4"), data=tmp_path / "data", key=KEY, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == SEED_TABLE
    assert stack.stats().runs_created == 15


def test_faults_change_nothing_and_each_attempt_runs_once(
    make_stack, seed_cases: Path, tmp_path: Path
) -> None:
    stack = make_stack(
        keys={KEY: None},
        script=StackScript(turns=seed_turn),
        rate_429=0.30,
        rate_503=0.10,
        rate_lost=0.10,
        retry_after="0.02",
        seed=11,
    )
    result = run(
        *on(stack, seed_cases, "--concurrency", "5"), data=tmp_path / "data", key=KEY, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == SEED_TABLE
    stats = stack.stats()
    assert stats.runs_created == 15
    assert stats.max_runs_per_key == 1
    # The faults hang on each attempt's key less its fresh evaluation id, so seed 11 gives
    # these POSTs the same faults on every run (7 replays, 18 refusals); CI once drew none.
    refused = stats.count("POST /v1/runs", 429) + stats.count("POST /v1/runs", 503)
    assert stats.replays > 0 and refused > 0


def test_never_more_runs_in_flight_than_the_concurrency(make_stack, tmp_path: Path) -> None:
    cases = tmp_path / "many.jsonl"
    cases.write_text("".join(f'{{"name": "c{i}", "input": "x"}}\n' for i in range(30)))
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript(latency=0.05)))
    result = run(
        *on(stack, cases, "--completion-only", "--concurrency", "6", "--attempts", "4"),
        data=tmp_path / "data",
        key=KEY,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert stack.stats().in_flight_peak == 6
    assert stack.stats().runs_created == 120


def test_a_hanging_turn_is_errored_and_cancelled_without_waiting(
    make_stack, tmp_path: Path
) -> None:
    cases = tmp_path / "hang.toml"
    cases.write_text(
        '[[cases]]\nname = "hangs"\ninput = "x"\ncheck = { equals = "x" }\n'
        '[[cases]]\nname = "quick"\ninput = "x"\ncheck = { equals = "x" }\n'
    )
    script = StackScript(turns={"hangs": TurnScript(latency=None)})
    stack = make_stack(keys={KEY: None}, script=script)
    started = time.monotonic()
    result = run(
        *on(stack, cases, "--attempts", "2", "--k", "1", "--timeout", "1"),
        data=tmp_path / "data",
        key=KEY,
        timeout=120,
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[2].split() == ["hangs", "0/2", "0", "2", "0.00", "0.00", "no"]
    assert lines[3].split() == ["quick", "2/2", "0", "0", "1.00", "1.00", "yes"]
    stats = stack.stats()
    assert stats.cancelled == 2 and stats.in_flight == 0
    assert elapsed < 30  # far from the 300 s default: the deadline, not the Turn, ended it


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"key": "sk-wrong-key-000"}, "key refused (401"),
        ({"key": "forbidden"}, "(403"),
        ({"agent": "nobody"}, "agent 'nobody' not found"),
        ({"version": "9"}, "has no version 9"),
    ],
)
def test_refusals_exit_3_in_one_line_before_any_run(
    make_stack, seed_cases: Path, tmp_path: Path, change: dict[str, str], expected: str
) -> None:
    stack = make_stack(keys={KEY: None, "forbidden": frozenset()})
    args = ["--stack", stack.url, "--agent", change.get("agent", "demo"), "--version",
            change.get("version", "1"), "--cases", str(seed_cases)]  # fmt: skip
    result = run(*args, data=tmp_path / "data", key=change.get("key", KEY), timeout=120)
    assert result.returncode == 3
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert stack.stats().runs_created == 0
    for secret in (KEY, "sk-wrong-key-000"):
        assert secret not in result.stderr


def test_unreachable_stack_exits_3(seed_cases: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    result = run(
        "--stack",
        url,
        "--agent",
        "demo",
        "--version",
        "1",
        "--cases",
        str(seed_cases),
        data=tmp_path / "data",
        key=KEY,
        timeout=120,
    )
    assert result.returncode == 3
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "unreachable" in result.stderr and url in result.stderr
