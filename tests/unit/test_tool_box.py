"""Running a model's tool calls with real processes: every failure answered as an error, each call
bounded by its timeout and the attempt's deadline, a sandboxed tool walled in."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.sandbox.room import Ended
from passk_tui.core.sandbox.settings import SandboxSettings
from passk_tui.targets.conversing.tools import ToolBox
from passk_tui.targets.conversing.tools_file import load_tools

TOOLS = """\
[[tools]]
name = "echo"
description = "Says its arguments back."
parameters = { type = "object", properties = { text = { type = "string" } } }
command = ["python3", "-c", "import sys; print(sys.stdin.read())"]

[[tools]]
name = "slow"
command = ["python3", "-c", "import time; time.sleep(30)"]
timeout = 0.5

[[tools]]
name = "crash"
command = ["python3", "-c", "import sys; sys.exit('boom')"]

[[tools]]
name = "peek"
command = ["python3", "-c", "import json, os, sys; print(os.path.exists(json.load(sys.stdin)['path']))"]
sandbox = true
"""


def _box(tmp_path: Path, text: str = TOOLS) -> ToolBox:
    (tmp_path / "tools").mkdir(exist_ok=True)
    path = tmp_path / "tools" / "tools.toml"
    path.write_text(text)
    return ToolBox(load_tools(path, "tools.toml"))


def _call(box: ToolBox, name: str, arguments: str, seconds: float = 20.0):
    async def called():
        return await box.call(name, arguments, asyncio.get_running_loop().time() + seconds)

    return asyncio.run(called())


def test_a_call_gets_its_arguments_as_json_on_stdin(tmp_path: Path) -> None:
    arguments, answer = _call(_box(tmp_path), "echo", '{"text": "hi"}')
    assert arguments == {"text": "hi"}
    assert (answer.content, answer.error) == ('{"text": "hi"}', False)
    assert answer.duration > 0


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("nope", "{}", "error: no tool named 'nope' (tools: echo, slow, crash, peek)"),
        ("echo", "{not json", "error: the arguments are not JSON: "),
        ("echo", "[1]", "error: the arguments must be a JSON object"),
        ("crash", "{}", "error: exit 1: boom"),
        ("slow", "{}", "error: timed out after 0.5 s"),
    ],
)
def test_every_failure_is_answered_as_an_error(
    tmp_path: Path, name: str, arguments: str, said: str
) -> None:
    _, answer = _call(_box(tmp_path), name, arguments)
    assert answer.error and answer.content.startswith(said)


def test_the_attempts_deadline_cuts_a_tool_short_of_its_timeout(tmp_path: Path) -> None:
    box = _box(tmp_path, TOOLS.replace("timeout = 0.5", "timeout = 60"))
    _, answer = _call(box, "slow", "{}", seconds=0.5)
    assert answer.content == "error: still running at the attempt's deadline"
    assert answer.duration < 30  # killed, not waited for


def test_a_sandboxed_tool_does_not_see_the_hosts_tmp(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("key")
    box = _box(tmp_path)
    assert _call(box, "peek", json.dumps({"path": str(secret)}))[1].content == "False"
    unwalled = TOOLS.replace("sandbox = true", "")
    assert (
        _call(_box(tmp_path, unwalled), "peek", json.dumps({"path": str(secret)}))[1].content
        == "True"
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (('type = "object", properties = { text', 'type = "array", properties = { text'),
         "tools[0] (echo): parameters: type must be 'object'"),
        (('{ type = "string" }', '{ type = "text" }'),
         "parameters: properties.text: type 'text' is not a JSON type"),
        (('name = "slow"', 'name = "echo"'), "tools[1]: name 'echo' is given twice"),
        (('name = "crash"', 'name = "a b"'), "tools[2]: name must be 1 to 64 letters"),
        (("timeout = 0.5", "timeuot = 0.5"), "unknown key 'timeuot' (did you mean 'timeout'?)"),
    ],
)  # fmt: skip
def test_a_bad_tools_file_is_one_line(
    tmp_path: Path, change: tuple[str, str], problem: str
) -> None:
    with pytest.raises(InputError, match=r"^tools\.toml: ") as caught:
        _box(tmp_path, TOOLS.replace(*change))
    assert problem in str(caught.value)


class _Recorded:
    """An ``Elsewhere`` that records each program it is handed and answers as a node would."""

    def __init__(self, ended: Ended) -> None:
        self.ended = ended
        self.calls: list[tuple[tuple[str, ...], Path, bytes, float]] = []

    async def __call__(
        self,
        argv: Sequence[str],
        folder: Path,
        stdin: bytes,
        sandbox: SandboxSettings | None,
        seconds: float,
    ) -> Ended:
        self.calls.append((tuple(argv), folder, stdin, seconds))
        return self.ended


def test_with_an_executor_each_call_runs_there_as_written(tmp_path: Path) -> None:
    """--executor ray: the tool's command as written, in its folder (which a node gets
    shipped), its arguments on stdin, bounded by its timeout; nothing runs here."""
    box = _box(tmp_path)
    there = _Recorded(Ended(0, b"ran there\n", b""))
    box.elsewhere = there
    _, answer = _call(box, "slow", '{"a": 1}')
    assert (answer.content, answer.error) == ("ran there", False)  # here it would time out
    argv, folder, stdin, seconds = there.calls[0]
    assert argv == ("python3", "-c", "import time; time.sleep(30)")
    assert (folder, json.loads(stdin), seconds) == (tmp_path / "tools", {"a": 1}, 0.5)
    box.elsewhere = _Recorded(Ended(None, b"", b"", limit="memory limit (256 MiB) reached"))
    _, limited = _call(box, "peek", '{"path": "/"}')
    assert (limited.content, limited.error) == ("error: memory limit (256 MiB) reached", True)
