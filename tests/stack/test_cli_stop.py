"""Stopping a headless run: signals withdraw what is in flight, a dead stack is exit 3, resume mends."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from passk_tui.core.run.stop_signals import REPEAT_WINDOW
from passk_tui.store import DB_NAME, Store
from tests.support.cli import finish, start
from tests.support.processes import wait_until
from tests.support.resume import EXPECTED, KEY, recorded, slow_script, start_args
from tests.support.stack_server import StackScript, TurnScript


def counted(data: Path) -> int:
    with sqlite3.connect(data / DB_NAME, timeout=5) as db:
        return db.execute("SELECT COUNT(*) FROM attempts WHERE outcome != 'withdrawn'").fetchone()[
            0
        ]


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_a_stop_signal_withdraws_the_attempts_in_flight(
    make_stack, cases: Path, tmp_path: Path, signum: int, code: int
) -> None:
    """Withdrawn: counted nowhere, kept as such, rerun on resume under a retake key."""
    stack = make_stack(keys={KEY: None}, script=slow_script(0.6))
    data = tmp_path / "data"
    process = start(*start_args(stack, cases, "--concurrency", "3"), data=data, key=KEY)
    wait_until(
        process,
        lambda: recorded(data) >= 3 and stack.stats().in_flight == 3,
        "no attempt was stored with three more in flight",
    )
    process.send_signal(signum)
    status, out, err = finish(process)
    assert status == code, err
    kept = counted(data)
    assert f"passk-tui: cancelled: {12 - kept} attempts not run" in err
    assert "Traceback" not in err
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        stored = store.load(summary.id)
    assert summary.status == "cancelled" and summary.recorded == kept
    assert {r.status for r in stored.records} <= {"completed", "failed"}  # none "cancelled"
    withdrawn = stored.withdrawn
    assert withdrawn and all(r.retake == 0 for r in withdrawn)
    assert stack.stats().cancelled == len(withdrawn)  # their Runs were cancelled on the stack

    stack.reset()
    status, out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert status == 0, err
    assert out == EXPECTED  # alpha always passes: 4/4, the withdrawn attempts not errored
    stats = stack.stats()
    assert stats.replays == 0  # no cancelled Turn was replayed under its old key
    for r in withdrawn:
        keys = stats.keys_by_attempt[f"{r.case}#{r.attempt}"]
        assert keys == [f"{r.key}/r1"], keys


def test_one_stop_sent_to_the_process_and_its_group_is_one_stop(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """As timeout(1) and CI runners stop a job: SIGTERM to the child, then again to its group.

    The copy 50 ms later is the same stop, not "stop now": the Runs in flight are
    cancelled on the stack, not abandoned there.
    """
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript(latency=None)))
    data = tmp_path / "data"
    process = start(
        *start_args(stack, cases, "--concurrency", "3"), data=data, start_new_session=True, key=KEY
    )
    wait_until(process, lambda: stack.stats().in_flight == 3, "no Runs in flight")
    os.kill(process.pid, signal.SIGTERM)
    time.sleep(0.05)
    os.killpg(process.pid, signal.SIGTERM)
    status, _, err = finish(process)
    assert status == 143, err
    assert "quitting now" not in err and "Traceback" not in err
    assert err.count("SIGTERM: cancelling the Runs in flight") == 1
    assert stack.stats().cancelled == 3  # cancelled on the stack, none left running there
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        assert len(store.load(summary.id).withdrawn) == 3
    assert summary.status == "cancelled"


def test_a_second_signal_quits_at_once_and_the_store_stays_consistent(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript(latency=None)))
    data = tmp_path / "data"
    process = start(*start_args(stack, cases, "--concurrency", "3"), data=data, key=KEY)
    wait_until(process, lambda: stack.stats().in_flight == 3, "no Runs in flight")
    stack.config.dribble = 1.0  # the cancels would now take their whole budget
    process.send_signal(signal.SIGINT)
    wait_until(process, lambda: recorded(data) == 3, "the withdrawals were not stored")
    time.sleep(REPEAT_WINDOW)  # sooner, it is the first stop delivered again
    process.send_signal(signal.SIGINT)
    status, _, err = finish(process, timeout=10)
    assert status == 130, err
    assert "quitting now" in err and "--resume ev_" in err and "Traceback" not in err
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        assert len(store.load(summary.id).withdrawn) == 3
    assert summary.status in ("interrupted", "cancelled")


def test_a_stack_that_dies_mid_run_is_exit_3_and_resumable(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """Not "done" with the outage stored as errored: exit 3, the rest left for --resume."""
    stack = make_stack(keys={KEY: None}, script=slow_script(0.2), die_after_runs=5)
    data = tmp_path / "data"
    status, out, err = finish(
        start(*start_args(stack, cases, "--concurrency", "2"), data=data, key=KEY)
    )
    assert status == 3, err
    assert f"passk-tui: stack at {stack.url} unreachable mid-run: connection refused" in err
    assert "--resume ev_" in err and out == ""
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        stored = store.load(summary.id)
    assert summary.status == "failed" and 0 < len(stored.records) < 12
    assert all(
        r.status != "timed_out" and "connection" not in (r.error or "") for r in stored.records
    )

    back = make_stack(keys={KEY: None}, script=slow_script(0.05))
    status, out, err = finish(start("--resume", "last", "--stack", back.url, data=data, key=KEY))
    assert status == 0, err
    assert out == EXPECTED


def test_absurd_attempt_counts_are_refused_in_one_line(cases: Path, tmp_path: Path) -> None:
    args = ["--agent", "demo", "--version", "1", "--cases", str(cases), "--attempts", "5000000"]
    status, out, err = finish(start(*args, "--stack", "http://127.0.0.1:9", data=tmp_path, key=KEY))
    assert (status, out) == (2, "")
    assert err == (
        "passk-tui: --attempts 5000000: 3 cases x 5000000 attempts is 15,000,000 attempts, "
        "more than the 10,000,000 one evaluation may plan\n"
    )
