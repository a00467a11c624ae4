"""examples/conversations as its README runs it: the scripted tool-calling server, then the CLI on
its four cases (three turns, tools, a transcript check, a simulated customer)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversations"


@pytest.fixture
def example(tmp_path: Path) -> Iterator[Path]:
    """A copy of the example whose agents point at its scripted server, seeded, on a free port."""
    folder = tmp_path / "conversations"
    shutil.copytree(EXAMPLE, folder)
    server = subprocess.Popen(
        [sys.executable, str(folder / "scripted_model.py"), "--port", "0", "--seed", "5"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    agents = folder / "agents.toml"
    agents.write_text(agents.read_text().replace("http://127.0.0.1:8099/v1", url))
    yield folder
    server.terminate()
    server.wait()


def test_the_example_runs_every_kind_of_case(example: Path) -> None:
    args = ["--agent", "support", "--version", "1", "--cases", "cases.toml"]
    result = run(*args, "--attempts", "4", "--export", "out.json", cwd=example)
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split()[1:4] for line in result.stdout.splitlines()[2:]}
    assert list(rows) == ["booking", "refund", "refund-looked-up", "refund-by-chat"]
    assert rows["booking"] == ["4/4", "0", "0"]
    assert all(errored == "0" for _, _, errored in rows.values())
    exported = json.loads((example / "out.json").read_text())
    chat = next(a for a in exported["attempts"] if a["case"] == "refund-by-chat")["transcript"]
    assert chat["messages"][0]["simulated"] is True
    assert any(m["role"] == "tool" for m in chat["messages"])
    tools = {c["name"]: c["conversation"]["tool_calls"] for c in exported["cases"]}
    assert tools["booking"] == {"p50": 0.0, "p95": 0.0} and tools["refund"]["p95"] >= 1
