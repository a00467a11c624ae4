"""kill -9 while the judge votes: nothing paid for is lost, the vote in flight is asked again
under its key, the votes stored are not."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
from pathlib import Path

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


async def test_kill_9_while_judging_loses_no_vote_and_asks_none_twice(tmp_path: Path) -> None:
    judge = ScriptedJudge(latency=0.4)
    await judge.start()
    try:
        (tmp_path / "cases.toml").write_text(CASES)
        (tmp_path / "agents.toml").write_text(
            f'[agents.echo.versions.1]\ncommand = ["python3", "{ECHO}"]\n'
            f'[agents.grader.versions.1]\nopenai = {{ base_url = "{judge.base_url}", '
            'model = "j" }\n'
        )
        env = environment(tmp_path / "data", PYTHONPATH=str(ROOT))
        db = tmp_path / "data" / "passk.db"
        args = ("--agent", "echo", "--version", "1", "--cases", "cases.toml", "--attempts", "1")
        process = await asyncio.create_subprocess_exec(
            *command(*args), cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        # Kill it once the first vote is kept and the second is being asked.
        for _ in range(600):
            if _votes(db) == [1] and judge.in_flight == 1:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError(f"never saw a vote kept and one in flight: {_votes(db)}")
        process.send_signal(signal.SIGKILL)
        await process.wait()
        assert judge.requests == 2 and _votes(db) == [1]

        code, _, err = await run_async(
            "--resume", "last", "--export", "e.json", env=env, cwd=tmp_path
        )
        assert code == 0, err
        # Vote 2, in flight at the kill, asked again; vote 3 asked; vote 1 read from the store.
        assert judge.requests == 4
        (attempt,) = json.loads((tmp_path / "e.json").read_text())["attempts"]
        assert attempt["outcome"] == "passed"
        keys = [run["key"].rsplit("/judge/", 1)[1] for run in attempt["judge"]["runs"]]
        assert keys == ["1", "2", "3"]
        assert attempt["judge"]["said"] == "votes 3/3 pass"
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


def _asked(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


async def test_a_command_judge_killed_mid_vote_is_keyed_and_resumed_as_an_openai_one(
    tmp_path: Path,
) -> None:
    """A `command` judge's votes have the same keys and the same resume as an `openai`
    judge's: the vote kept is read, the one in flight at the kill asked again, none twice."""
    (tmp_path / "cases.toml").write_text(CASES)
    (tmp_path / "judge.py").write_text(COMMAND_JUDGE)
    (tmp_path / "agents.toml").write_text(
        f'[agents.echo.versions.1]\ncommand = ["python3", "{ECHO}"]\n'
        '[agents.grader.versions.1]\ncommand = ["python3", "judge.py"]\n'
    )
    env = environment(tmp_path / "data", PYTHONPATH=str(ROOT))
    db, log = tmp_path / "data" / "passk.db", tmp_path / "asked.log"
    args = ("--agent", "echo", "--version", "1", "--cases", "cases.toml", "--attempts", "1")
    process = await asyncio.create_subprocess_exec(
        *command(*args), cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(600):  # once the first vote is kept and the second is being asked
        if _votes(db) == [1] and _asked(log) == 2:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError(f"never saw a vote kept and one in flight: {_votes(db)}")
    process.send_signal(signal.SIGKILL)
    await process.wait()
    assert _votes(db) == [1]

    code, _, err = await run_async("--resume", "last", "--export", "e.json", env=env, cwd=tmp_path)
    assert code == 0, err
    assert _asked(log) == 4  # vote 2 asked again, vote 3 asked, vote 1 read from the store
    exported = json.loads((tmp_path / "e.json").read_text())
    (attempt,) = exported["attempts"]
    assert [run["key"] for run in attempt["judge"]["runs"]] == [
        f"{attempt['key']}/judge/{n}" for n in (1, 2, 3)
    ]
    assert attempt["judge"]["said"] == "votes 3/3 pass"
    assert exported["cases"][0]["judge_runs"] == 3  # each vote counted once
