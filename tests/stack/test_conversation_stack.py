"""Conversations on the test stack over real HTTP: one Run per turn, each with its own key
``<attempt key>/turn/<i>``, and a kill -9 mid-conversation resumed from turn 1, each Run once."""

from __future__ import annotations

import functools
import json
import signal
import subprocess
from pathlib import Path

from passk_tui.store import DB_NAME, Store
from tests.support.cli import KEY, finish, start
from tests.support.stack_server import StackScript, TurnScript

CASES = """\
[[cases]]
name = "booking"
turns = ["A table for two, please.", "Tomorrow at 7pm.", "Yes, confirm it."]
check = { contains = "confirm it" }
"""


def _args(stack_url: str, cases: Path, attempts: str = "2") -> list[str]:
    return [
        "--stack", stack_url, "--agent", "demo", "--version", "1", "--cases", str(cases),
        "--attempts", attempts, "--k", "1", "--concurrency", "1", "--export",
        str(cases.parent / "out.json"),
    ]  # fmt: skip


def _stored(data: Path):
    with Store.open(data / DB_NAME) as store:
        return store.load(store.resolve("last"))


def test_each_turn_is_a_run_of_its_own_with_the_whole_conversation(
    make_stack, tmp_path: Path
) -> None:
    stack = make_stack(keys={KEY: None})
    cases = tmp_path / "cases.toml"
    cases.write_text(CASES)
    code, out, err = finish(start(*_args(stack.url, cases), data=tmp_path / "data", key=KEY))
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["booking", "2/2"]
    records = _stored(tmp_path / "data").records
    keys = set(stack.stats().runs_by_key)
    assert keys == {f"{r.key}/turn/{i}" for r in records for i in (1, 2, 3)}
    # The third turn's Run got the whole conversation, each answer in it.
    inputs = stack.call(lambda state: [run.input for run in state.runs.values()])
    third = next(i for i in inputs if len(i["messages"]) == 5)["messages"]
    assert [m["role"] for m in third] == ["user", "assistant", "user", "assistant", "user"]
    assert third[1]["content"] == "you said: A table for two, please."
    exported = json.loads((tmp_path / "out.json").read_text())["attempts"][0]
    assert exported["transcript"]["messages"][-1]["content"] == "you said: Yes, confirm it."


def _kill_at(k: int, process: list[subprocess.Popen[str]], created: int) -> None:
    """SIGKILL the client as the stack creates its k-th Run, before any answer goes back."""
    if created == k:
        process[0].kill()


def test_kill_9_mid_conversation_then_resume_runs_each_turn_once(
    make_stack, tmp_path: Path
) -> None:
    """Killed as attempt 1's second turn starts: the attempt is unfinished; the resume plays it
    again from turn 1 under the same keys (the stack replays both turns), counted once."""
    # Turn Runs take a moment, so that the kill lands while one is running.
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript(latency=0.3)))
    killed: list[subprocess.Popen[str]] = []
    stack.config.on_run_created = functools.partial(_kill_at, 2, killed)
    cases = tmp_path / "cases.toml"
    cases.write_text(CASES)
    data = tmp_path / "data"
    killed.append(start(*_args(stack.url, cases), data=data, key=KEY))
    assert killed[0].wait(timeout=30) == -signal.SIGKILL
    first = _stored(data)
    assert first.records == [] and len(first.in_flight) == 1
    before = set(stack.stats().runs_by_key)
    assert len(before) == 2 and all("/turn/" in key for key in before)

    stack.config.on_run_created = None
    code, out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["booking", "2/2"]
    stats = stack.stats()
    assert stats.max_runs_per_key == 1  # nothing ran twice
    assert stats.replays >= 2  # turns 1 and 2 of attempt 1, asked for again
    resumed = _stored(data)
    assert [r.attempt for r in resumed.records] == [1, 2] and not resumed.in_flight
    assert set(stats.runs_by_key) == {
        f"{r.key}/turn/{i}" for r in resumed.records for i in (1, 2, 3)
    }
    assert all(r.transcript is not None and r.transcript.turns == 3 for r in resumed.records)


#: A customer who samples: its first words differ each time it is asked (as a model's do at
#: any temperature above 0), then it thanks the agent once it has had two answers.
SAMPLING_CUSTOMER = """\
import json, os, sys
messages = json.load(sys.stdin)["messages"]
heard = [m for m in messages if m["role"] == "user"]
if len(heard) >= 2:
    print("Thank you! ###DONE###")
else:
    print(f"I want a refund for order {int.from_bytes(os.urandom(4))}.")
"""

USER_CASES = """\
[[cases]]
name = "refund-by-chat"
user = { agent = "customer", instruction = "You want a refund.", max_turns = 4, stop = "###DONE###" }
check = { contains = "you said" }
"""


def test_a_sampling_simulated_user_is_replayed_on_resume_not_asked_again(
    make_stack, tmp_path: Path
) -> None:
    """Killed as attempt 2's second turn starts (attempt 1 stored): the resume replays what
    the simulated user wrote (stored as it landed) instead of asking it again, so the stack
    gets each turn's Run under its key with the same body and replays it (before: the user
    wrote anew, the first turn's body changed under its key, and the stack answered 409)."""
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript(latency=0.3)))
    killed: list[subprocess.Popen[str]] = []
    stack.config.on_run_created = functools.partial(_kill_at, 4, killed)
    (tmp_path / "customer.py").write_text(SAMPLING_CUSTOMER)
    agents = tmp_path / "agents.toml"
    agents.write_text('[agents.customer.versions.1]\ncommand = ["python3", "customer.py"]\n')
    cases = tmp_path / "cases.toml"
    cases.write_text(USER_CASES)
    data = tmp_path / "data"
    args = [*_args(stack.url, cases), "--agents", str(agents)]
    killed.append(start(*args, data=data, key=KEY, cwd=tmp_path))
    assert killed[0].wait(timeout=30) == -signal.SIGKILL
    first = _stored(data)
    assert [r.attempt for r in first.records] == [1] and len(first.in_flight) == 1

    stack.config.on_run_created = None
    code, out, err = finish(start("--resume", "last", data=data, key=KEY, cwd=tmp_path))
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["refund-by-chat", "2/2"]
    resumed = _stored(data)
    assert [(r.attempt, r.outcome, r.error) for r in resumed.records] == [
        (1, "passed", None),
        (2, "passed", None),
    ]
    stats = stack.stats()
    assert stats.count("POST /v1/runs", 409) == 0 and stats.max_runs_per_key == 1
    second = resumed.records[1].transcript
    assert second is not None
    said = [m.content for m in second.messages if m.role == "user"]
    assert len(said) == 3 and said[-1] == "Thank you!"
    # What the agent was told in turn 1 is what the customer first wrote, before the kill.
    turn_1 = stack.call(lambda state: state.by_key[f"{resumed.records[1].key}/turn/1"][1].input)
    assert turn_1["messages"][0]["content"] == said[0]
