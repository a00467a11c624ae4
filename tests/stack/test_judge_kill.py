"""kill -9 while the judge votes: nothing paid for is lost, the vote in flight is asked again
under its key, the votes stored are not."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.stack.test_judge_cli import ECHO, ROOT
from tests.support.cli import command, environment, run_async
from tests.support.judge_server import ScriptedJudge

CASES = """
[[cases]]
name = "good"
input = "a good answer"
check = { judge = "Is good.", agent = "grader", votes = 3 }
"""


def _votes(db: Path) -> list[int]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as connection:
        try:
            return [
                row[0] for row in connection.execute("SELECT run FROM judge_votes ORDER BY run")
            ]
        except sqlite3.OperationalError:
            return []  # not made yet


async def _killed_mid_vote(folder: Path, grader: str, asked: Callable[[], int]) -> dict[str, str]:
    """Run the case with ``grader`` (its agents-file line) as the judge, kill -9 the process
    once the first vote is kept and the second asked (``asked``: the judge's Runs so far),
    and give the environment its resume runs in."""
    (folder / "cases.toml").write_text(CASES)
    (folder / "agents.toml").write_text(
        f'[agents.echo.versions.1]\ncommand = ["python3", "{ECHO}"]\n'
        f"[agents.grader.versions.1]\n{grader}\n"
    )
    env = environment(folder / "data", PYTHONPATH=str(ROOT))
    db = folder / "data" / "passk.db"
    args = ("--agent", "echo", "--version", "1", "--cases", "cases.toml", "--attempts", "1")
    process = await asyncio.create_subprocess_exec(
        *command(*args), cwd=folder, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(600):
        if _votes(db) == [1] and asked() == 2:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError(f"never saw a vote kept and one in flight: {_votes(db)}")
    process.send_signal(signal.SIGKILL)
    await process.wait()
    assert asked() == 2 and _votes(db) == [1]
    return env


async def _resumed_attempt(folder: Path, env: dict[str, str]) -> dict[str, Any]:
    """The resume's exported attempt, its judge's Runs each keyed ``<attempt key>/judge/<n>``
    and counted once."""
    code, _, err = await run_async("--resume", "last", "--export", "e.json", env=env, cwd=folder)
    assert code == 0, err
    exported = json.loads((folder / "e.json").read_text())
    (attempt,) = exported["attempts"]
    assert attempt["outcome"] == "passed"
    keys = [run["key"] for run in attempt["judge"]["runs"]]
    assert keys == [f"{attempt['key']}/judge/{n}" for n in (1, 2, 3)]
    assert attempt["judge"]["said"] == "votes 3/3 pass"
    assert exported["cases"][0]["judge_runs"] == 3
    return dict(attempt)


async def test_kill_9_while_judging_loses_no_vote_and_asks_none_twice(tmp_path: Path) -> None:
    judge = ScriptedJudge(latency=0.4)
    await judge.start()
    try:
        openai = f'openai = {{ base_url = "{judge.base_url}", model = "j" }}'
        # A vote is asked once its request is in: at the kill the second is, unanswered.
        env = await _killed_mid_vote(tmp_path, openai, lambda: judge.requests)
        await _resumed_attempt(tmp_path, env)
        # Vote 2, in flight at the kill, asked again; vote 3 asked; vote 1 read from the store.
        assert judge.requests == 4
    finally:
        await judge.stop()


#: A `command` judge that notes each Run it starts, then takes a moment to say PASS.
COMMAND_JUDGE = """\
import sys, time
sys.stdin.read()
with open("asked.log", "a") as log:
    log.write("asked\\n")
time.sleep(0.4)
print("VERDICT: PASS")
"""


async def test_a_command_judge_killed_mid_vote_is_keyed_and_resumed_as_an_openai_one(
    tmp_path: Path,
) -> None:
    """A `command` judge's votes have the same keys and the same resume as an `openai`
    judge's: the vote kept is read, the one in flight at the kill asked again, none twice."""
    (tmp_path / "judge.py").write_text(COMMAND_JUDGE)
    log = tmp_path / "asked.log"

    def asked() -> int:
        return len(log.read_text().splitlines()) if log.exists() else 0

    env = await _killed_mid_vote(tmp_path, 'command = ["python3", "judge.py"]', asked)
    await _resumed_attempt(tmp_path, env)
    assert asked() == 4  # vote 2 asked again, vote 3 asked, vote 1 read from the store
