"""Resume: a SIGKILLed headless run continues without running any attempt twice; flags checked."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from passk_tui.store import DB_NAME, Store
from tests.support.cli import finish, start
from tests.support.resume import CASES, EXPECTED, KEY, recorded, slow_script, start_args

# alpha always passes; beta answers wrong on attempts 2 and 4; gamma's Turn fails on attempt 3.


def test_sigkill_then_resume_runs_each_attempt_once(make_stack, cases: Path, tmp_path: Path):
    stack = make_stack(keys={KEY: None}, script=slow_script(0.8))
    data = tmp_path / "data"
    process = start(*start_args(stack, cases, "--concurrency", "4"), data=data, key=KEY)
    deadline = time.monotonic() + 30
    # Kill once some attempts are stored and a new wave of Runs is in flight on the stack.
    while True:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no attempt was stored in time"
        if recorded(data) >= 4 and stack.stats().in_flight > 0:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    in_flight_at_kill = stack.stats().in_flight
    kept = recorded(data)
    assert 4 <= kept < 12

    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
    assert summary.status == "interrupted" and summary.recorded == kept

    code, out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert code == 0, err
    assert out == EXPECTED
    stats = stack.stats()
    assert stats.runs_created == 12, stats
    assert set(stats.runs_by_key.values()) == {1}, stats.runs_by_key
    # The Runs in flight at the kill were replayed under their original keys, not run again.
    assert stats.replays >= in_flight_at_kill > 0
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        stored = store.load(summary.id)
    assert summary.status == "done" and summary.recorded == 12
    assert {r.key for r in stored.records} == set(stats.runs_by_key)


def test_auth_error_mid_run_is_resumable_and_the_key_is_nowhere(
    make_stack, cases: Path, tmp_path: Path
):
    stack = make_stack(keys={KEY: None}, script=slow_script(0.3))
    data = tmp_path / "data"
    exports = tmp_path / "out"
    exports.mkdir()
    process = start(
        *start_args(stack, cases, "--concurrency", "2", "--key", KEY),
        "--export",
        str(exports / "first.json"),
        data=data,
        key=None,
    )
    deadline = time.monotonic() + 30
    while recorded(data) < 2:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    stack.config.keys = {"another-key": None}  # the stack now refuses ours: 401
    code, out, err = finish(process)
    assert code == 3, err
    assert "401" in err and "--resume ev_" in err
    assert "Traceback" not in err
    kept = recorded(data)
    assert 2 <= kept < 12

    stack.config.keys = {KEY: None}
    outputs = [out, err]
    for suffix in ("json", "csv", "md", "xml"):
        code, out, err = finish(
            start(
                "--resume", "last", "--export", str(exports / f"all.{suffix}"), data=data, key=KEY
            )
        )
        assert code == 0, err
        assert out == EXPECTED
        outputs += [out, err]
    history = subprocess.run(
        [sys.executable, "-m", "passk_tui", "history"],
        capture_output=True,
        text=True,
        env={**os.environ, "PASSK_DATA_DIR": str(data)},
        check=True,
    )
    outputs += [history.stdout, history.stderr]

    secret = KEY.encode()
    assert all(KEY not in text for text in outputs)
    files = [
        p
        for root in (data, exports, Path(os.environ["XDG_CONFIG_HOME"]))
        for p in root.rglob("*")
        if p.is_file()
    ]
    assert any(p.name == DB_NAME for p in files) and len(list(exports.iterdir())) == 5
    for path in files:
        assert secret not in path.read_bytes(), path


def test_resume_refuses_a_changed_measured_flag(make_stack, cases: Path, tmp_path):
    stack = make_stack(script=slow_script(0.05))
    data = tmp_path / "data"
    code, out, err = finish(
        start(*start_args(stack, cases, "--key", "secret-key"), data=data, key=KEY)
    )
    assert code == 0, err
    before = stack.stats().runs_created
    code, out, err = finish(start("--resume", "last", "--attempts", "3", data=data, key=KEY))
    assert code == 2 and err.count("\n") == 1 and "--attempts 3 is fewer" in err
    for flag, value in (
        ("--k", "2"),
        ("--agent", "other"),
        ("--version", "2"),
        ("--cases", str(tmp_path / "other.toml")),
    ):
        code, out, err = finish(start("--resume", "last", flag, value, data=data, key=KEY))
        assert code == 2, (flag, err)
        assert out == "" and err.count("\n") == 1 and flag in err and "measured" in err
    code, out, err = finish(start("--resume", "last", "--completion-only", data=data, key=KEY))
    assert code == 2 and "--completion-only" in err
    # Attempts may grow (an extension), never shrink.
    for flag, value in (("--attempts", "3"), ("--max-attempts", "3")):
        code, out, err = finish(start("--resume", "last", flag, value, data=data, key=KEY))
        assert code == 2, (flag, err)
        assert out == "" and err.count("\n") == 1 and flag in err, err
    # Giving the stored value again, or a running setting anew, is fine.
    code, out, err = finish(
        start("--resume", "last", "--attempts", "4", "--concurrency", "9", data=data, key=KEY)
    )
    assert code == 0, err
    assert stack.stats().runs_created == before


def test_resume_of_a_finished_evaluation_prints_it_and_applies_a_new_gate(
    make_stack, cases: Path, tmp_path: Path
):
    stack = make_stack(script=slow_script(0.05))
    data = tmp_path / "data"
    code, first, err = finish(start(*start_args(stack, cases), data=data, key="secret-key"))
    assert code == 0, err
    runs = stack.stats().runs_created
    # No key needed: nothing runs.
    code, out, err = finish(start("--resume", "last", "--require", "0.8", data=data, key=None))
    assert out == first == EXPECTED
    assert code == 0 and stack.stats().runs_created == runs
    code, out, err = finish(start("--resume", "last", data=data, key=None))
    assert code == 0
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
    # Showing a finished evaluation changes nothing stored, not even the gate.
    assert summary.status == "done" and summary.under_gate is None


def test_changed_cases_file_warns_and_the_stored_cases_are_used(
    make_stack, cases: Path, tmp_path: Path
):
    stack = make_stack(keys={"secret-key": None}, script=slow_script(0.05))
    data = tmp_path / "data"
    process = start(*start_args(stack, cases, "--concurrency", "1"), data=data, key="secret-key")
    deadline = time.monotonic() + 30
    while recorded(data) < 3:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)  # Ctrl-C: cancels the Runs in flight, resumable
    code, out, err = finish(process)
    assert code == 130 and "--resume ev_" in err
    cases.write_text(CASES.replace('"gamma"', '"delta"'))
    code, out, err = finish(start("--resume", "last", data=data, key="secret-key"))
    assert code == 0, err
    assert "changed since" in err and "stored cases" in err
    assert "gamma" in out and "delta" not in out


def test_resume_older_than_a_day_warns_about_expired_keys(make_stack, cases: Path, tmp_path: Path):
    stack = make_stack(script=slow_script(0.05))
    data = tmp_path / "data"
    process = start(*start_args(stack, cases), data=data, key="nope-wrong-key")  # 401: nothing runs
    code, _, err = finish(process)
    assert code == 3 and "401" in err
    with sqlite3.connect(data / DB_NAME) as db:
        db.execute("UPDATE evaluations SET created = created - 25 * 3600")
    code, out, err = finish(start("--resume", "last", data=data, key="secret-key"))
    assert code == 0, err
    assert "24 h" in err and "may run again" in err
    assert out == EXPECTED


def test_resume_unknown_id_is_exit_2(tmp_path: Path):
    code, out, err = finish(start("--resume", "ev_nope", data=tmp_path / "data", key=KEY))
    assert (
        code == 2
        and out == ""
        and err
        == f"passk-tui: no evaluation 'ev_nope' in the store ({tmp_path / 'data' / DB_NAME})\n"
    )
    code, out, err = finish(start("--resume", "last", data=tmp_path / "data", key=KEY))
    assert code == 2 and "no evaluation in the store" in err
