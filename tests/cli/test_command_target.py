"""The command target: a local agent that is a program reading stdin and answering on stdout."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from passk_tui.core.errors import RunError
from passk_tui.core.inputs import program as program_module
from passk_tui.targets.agents_file import local_target
from passk_tui.targets.command import CommandTarget
from tests.support import AGENTS
from tests.support.processes import gone, kill_quietly

PY = sys.executable


def attempt(value: Any) -> Any:
    """What execute reads of a planned attempt: ``attempt.case.input``."""
    return SimpleNamespace(case=SimpleNamespace(input=value, name="c"), attempt=1, key="k")


def no_notice(reason: str, delay: float) -> None:
    raise AssertionError(f"a command target never retries ({reason})")


async def run(target: CommandTarget, value: Any):
    loop = asyncio.get_running_loop()
    try:
        return await target.execute(attempt(value), loop.time() + 30, no_notice)
    finally:
        await target.aclose()


def exists_at_all(pid: int) -> bool:
    """True while the pid is taken, zombie or not (a reaped child frees it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def wait_for(condition, timeout: float = 60.0) -> bool:
    """Whether ``condition()`` came to hold (the limit only ends a hang, on a loaded machine)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


async def test_exit_zero_answers_with_stdout_less_one_newline() -> None:
    turn = await run(CommandTarget([PY, str(AGENTS / "echo.py")], AGENTS), "391\n")
    assert turn.status == "completed"
    assert turn.output == "391\n"  # echo adds one newline; only that one goes
    assert turn.error is None
    assert turn.usage is None


async def test_text_input_reaches_stdin_as_utf8() -> None:
    turn = await run(CommandTarget([PY, str(AGENTS / "echo.py")], AGENTS), "héllo ✓")
    assert turn.output == "héllo ✓"


async def test_json_input_reaches_stdin_as_json() -> None:
    value = {"document": "a", "task": "summarize", "n": [1, 2]}
    turn = await run(CommandTarget([PY, str(AGENTS / "echo.py")], AGENTS), value)
    assert turn.status == "completed"
    assert json.loads(turn.output) == value


async def test_invalid_utf8_on_stdout_is_replaced_not_fatal() -> None:
    code = "import sys; sys.stdout.buffer.write(b'ok \\xff')"
    turn = await run(CommandTarget([PY, "-c", code], AGENTS), "")
    assert turn.status == "completed"
    assert turn.output == "ok \ufffd"


async def test_nonzero_exit_is_failed_with_stderr_tail() -> None:
    turn = await run(CommandTarget([PY, str(AGENTS / "fail.py")], AGENTS), "x")
    assert turn.status == "failed"
    assert turn.error.startswith("exit 3: ")
    assert turn.error.endswith("Traceback: the real reason is at the end")
    assert len(turn.error) <= len("exit 3: ") + 500


async def test_nonzero_exit_without_stderr() -> None:
    turn = await run(CommandTarget([PY, "-c", "raise SystemExit(4)"], AGENTS), "x")
    assert (turn.status, turn.error) == ("failed", "exit 4")


async def test_missing_program_is_failed_turn() -> None:
    turn = await run(CommandTarget(["no-such-agent-program"], AGENTS), "x")
    assert turn.status == "failed"
    assert turn.error == "cannot start 'no-such-agent-program': No such file or directory"


async def test_prepare_passes_for_a_program_that_can_start(tmp_path: Path) -> None:
    await CommandTarget([PY, "-c", "pass"], tmp_path).prepare()
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    await CommandTarget(["./agent.sh"], tmp_path).prepare()


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["no-such-agent-program"], "program not found on PATH: no-such-agent-program"),
        (["./missing.sh"], "program not found: ./missing.sh"),
        (["./agent.sh"], "program not executable: ./agent.sh"),
        (["."], "program not found on PATH: ."),
    ],
)
async def test_prepare_refuses_a_program_that_cannot_start(
    tmp_path: Path, argv: list[str], problem: str
) -> None:
    (tmp_path / "agent.sh").write_text("#!/bin/sh\necho hi\n")  # not executable
    target = CommandTarget(argv, tmp_path, label="agents.toml: agent 'calc' version 1")
    with pytest.raises(RunError) as caught:
        await target.prepare()
    assert str(caught.value) == f"agents.toml: agent 'calc' version 1: {problem}"
    assert caught.value.exit_code == 3


async def test_relative_paths_resolve_against_the_agents_file_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "agents").mkdir(parents=True)
    shutil.copy(AGENTS / "echo.py", project / "agents" / "echo.py")
    script = project / "bin" / "hello.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\ncat >/dev/null\necho hello from $(basename $(pwd))\n")
    script.chmod(0o755)
    (project / "agents.toml").write_text(
        f"[agents.echo.versions.1]\ncommand = [{json.dumps(PY)}, 'agents/echo.py']\n"
        "[agents.hello.versions.1]\ncommand = ['bin/hello.sh']\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    echo = local_target(project / "agents.toml", "echo", 1, concurrency=1)
    assert (await run(echo, "17")).output == "17"
    hello = local_target(project / "agents.toml", "hello", 1, concurrency=1)
    turn = await run(hello, "")
    assert (turn.status, turn.output) == ("completed", "hello from project")


async def test_cancel_kills_and_reaps_the_whole_process_tree(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    target = CommandTarget([PY, str(AGENTS / "tree.py"), str(pids_file)], AGENTS)
    loop = asyncio.get_running_loop()
    task = asyncio.create_task(target.execute(attempt("x"), loop.time() + 30, no_notice))
    assert await wait_for(pids_file.exists), "the agent never started its grandchild"
    child, grandchild = (int(pid) for pid in pids_file.read_text().split())
    assert not gone(child) and not gone(grandchild)

    try:
        task.cancel()
        # Quickly: a grandchild left holding stdout would make the reap wait out its sleep.
        done, _ = await asyncio.wait({task}, timeout=5)
        assert done, "cancelling did not end the attempt"
        with pytest.raises(asyncio.CancelledError):
            task.result()
        # The child is reaped before execute re-raises: its pid is free, not a zombie.
        assert not exists_at_all(child)
        assert await wait_for(lambda: gone(grandchild)), "the grandchild outlived the cancel"
    finally:
        kill_quietly(child, grandchild)
        await target.aclose()


async def test_a_second_cancel_while_reaping_still_waits_for_the_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    killed: list[int] = []
    monkeypatch.setattr(program_module, "kill_group", killed.append)
    exited = asyncio.Event()

    class SlowToDie:
        pid = 4242

        async def wait(self) -> int:
            await exited.wait()
            return -9

    task = asyncio.create_task(program_module.kill_and_reap(SlowToDie()))
    await asyncio.sleep(0.01)
    assert killed == [4242]
    task.cancel()  # the user cancels while the deadline's kill is being reaped
    await asyncio.sleep(0.01)
    assert not task.done(), "gave up reaping on a second cancel"
    exited.set()
    with pytest.raises(asyncio.CancelledError):
        await task  # the second cancel is passed on once the program is reaped


async def test_background_grandchild_does_not_outlive_a_completed_attempt(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    target = CommandTarget([PY, str(AGENTS / "background.py"), str(pid_file)], AGENTS)
    turn = await run(target, "x")
    assert (turn.status, turn.output) == ("completed", "done")
    grandchild = int(pid_file.read_text())
    try:
        assert await wait_for(lambda: gone(grandchild)), "the grandchild outlived its attempt"
    finally:
        kill_quietly(grandchild)


def test_repr_names_the_command() -> None:
    target = CommandTarget(["python3", "agents/calc.py"], Path("/x"))
    assert repr(target) == "CommandTarget(argv=['python3', 'agents/calc.py'], cwd='/x')"
