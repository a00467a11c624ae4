"""``evaluate()`` against agents that fight back: a deadline is a deadline, and whatever leaves
the agent (SystemExit, a stuck thread, a swallowed cancel, a blocked loop) is its attempt's
outcome, never the caller's."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import passk_tui
from passk_tui import Case
from passk_tui.store import Store
from tests.support.doc_examples import private_env

CASES = [Case("c", "x", {"equals": "x"})]

#: A script that evaluates one stuck agent with a 1 s deadline, says how it ended and returns.
STUCK = """
import asyncio, sys, time
import passk_tui
from passk_tui import Case

def sleeps(text):  # a sync agent asleep for an hour: its thread cannot be stopped
    time.sleep(3600)
    return text

async def swallows(text):  # an async agent that ignores every cancellation
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            pass

agent = {"sleeps": sleeps, "swallows": swallows}[sys.argv[1]]
result = passk_tui.evaluate(agent, cases=[Case("c", "x", {"equals": "x"})], attempts=2, k=1,
                            timeout=1)
(case,) = result.cases
print(result.status, case.errored)
"""


@pytest.mark.parametrize("agent", ["sleeps", "swallows"])
def test_a_stuck_agent_times_out_and_the_process_exits(tmp_path: Path, agent: str) -> None:
    (tmp_path / "stuck.py").write_text(STUCK)
    # Before: "sleeps" returned but the process waited an hour for its thread; "swallows"
    # never returned. The timeout here only turns a hang into a failure.
    done = subprocess.run(
        [sys.executable, "stuck.py", agent], cwd=tmp_path, env=private_env(tmp_path / "data"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "done 2\n"), done.stderr
    store = Store.open(tmp_path / "data" / "passk.db")
    (row,) = store.list_evaluations()
    records = store.load(row.id).records
    assert row.status == "done"
    assert {r.status for r in records} == {"timed_out"}
    assert {r.error for r in records} == {"no Turn within the 1 s deadline"}
    if agent == "swallows":
        assert "2 of the agent's coroutines ignored their cancellation" in done.stderr


def exits(text: str) -> str:
    sys.exit(3)


async def exits_async(text: str) -> str:
    sys.exit(3)


def interrupts(text: str) -> str:
    raise KeyboardInterrupt  # the agent's own, not a Ctrl-C of the caller


async def interrupts_async(text: str) -> str:
    raise KeyboardInterrupt


async def cancels_itself(text: str) -> str:
    raise passk_tui_cancelled()


def passk_tui_cancelled() -> BaseException:
    import asyncio

    return asyncio.CancelledError("the agent's own")


class Unreadable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


def unreadable(text: str) -> str:
    raise Unreadable


@pytest.mark.parametrize(
    ("agent", "error"),
    [
        (exits, "SystemExit: 3"),
        (exits_async, "SystemExit: 3"),
        (interrupts, "KeyboardInterrupt: "),
        (interrupts_async, "KeyboardInterrupt: "),
        (cancels_itself, "CancelledError: the agent's own"),
        (unreadable, "Unreadable: (its message could not be read)"),
    ],
)
def test_whatever_leaves_the_agent_is_an_errored_attempt(agent: Any, error: str) -> None:
    result = passk_tui.evaluate(agent, cases=CASES, attempts=2, k=1)
    (case,) = result.cases
    assert (result.status, case.errored, case.attempts) == ("done", 2, 2)
    records = Store.open().load(result.id).records
    assert {r.error for r in records} == {error}
    assert Store.open().list_evaluations()[0].status == "done"


class Hostile(str):
    """A str whose methods raise: a check, the store or an export must never call them."""

    def strip(self, *args: Any) -> str:
        raise RuntimeError("no strip")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    __hash__ = str.__hash__

    def __str__(self) -> str:
        raise RuntimeError("no str")


class HostileDict(dict[str, Any]):
    def items(self) -> Any:
        raise RuntimeError("no items")


def test_an_answer_is_read_as_plain_values() -> None:
    result = passk_tui.evaluate(lambda text: Hostile(" x "), cases=CASES, attempts=2, k=1)
    assert [(c.passed, c.errored) for c in result.cases] == [(2, 0)]
    result = passk_tui.evaluate(lambda text: HostileDict(a=1), cases=CASES, attempts=2, k=1)
    assert [(c.passed, c.errored) for c in result.cases] == [(0, 2)]
    records = Store.open().load(result.id).records
    assert {r.error for r in records} == {
        "the agent returned a HostileDict, which is neither text nor JSON"
    }


def test_an_answer_after_the_deadline_is_timed_out_though_the_loop_was_blocked() -> None:
    async def blocks(text: str) -> str:
        time.sleep(1.5)  # holds the event loop: the deadline cannot fire meanwhile
        return text

    result = passk_tui.evaluate(blocks, cases=CASES, attempts=2, k=1, timeout=0.5)
    (case,) = result.cases
    assert (case.passed, case.errored) == (0, 2)
    records = Store.open().load(result.id).records
    assert {r.status for r in records} == {"timed_out"}
    assert all(
        r.error and r.error.startswith("no Turn within the 0.5 s deadline (the agent's end came ")
        for r in records
    )
