"""A stack that stops answering (SIGSTOP: connections accepted, nothing answered) is an outage.

The evaluation stops with exit 3 and stores no attempt as errored for it; a resume
finishes the job. A slow Turn whose long polls are answered is not an outage, and
an attempt past its deadline while the stack answers is timed out as before.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from passk_tui.core.attempt import Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.store import DB_NAME, Store
from passk_tui.targets import stack as stack_module
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.widgets.run_summary import LiveLine
from tests.support import ROOT
from tests.support.app import run_to_end, wait_for
from tests.support.cli import finish, start
from tests.support.processes import wait_until
from tests.support.resume import KEY, recorded
from tests.support.stack_server import StackScript, TurnScript

ATTEMPTS = 6
#: Every case passes (the stack echoes the input): the table once all 6 attempts are in.
ALL_PASSED = """\
case   passed  wrong  errored  pass@1  pass@3  all passed
-----  ------  -----  -------  ------  ------  ----------
alpha  6/6     0      0        1.00    1.00    yes
beta   6/6     0      0        1.00    1.00    yes
gamma  6/6     0      0        1.00    1.00    yes
"""


def short_polls(window: float, margin: float) -> tuple[str, ...]:
    """How python starts passk-tui with long polls of at most ``window`` s and requests
    bounded ``margin`` s past them (30 and 10 s in use), so a test need not wait 40 s."""
    code = (
        "import sys; from passk_tui.targets import stack; "
        f"stack._MAX_WAIT = {window}; stack.ANSWER_MARGIN = {margin}; "
        "from passk_tui.cli.main import main; sys.exit(main())"
    )
    return ("-c", code)


def run_args(url: str, cases: Path, *more: str) -> list[str]:
    return [
        *("--stack", url, "--agent", "demo", "--version", "1", "--cases", str(cases)),
        *("--attempts", str(ATTEMPTS), "--concurrency", "3", *more),
    ]


@pytest.fixture
def stack_process() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The test stack in its own process (0.4 s Turns), so that it can be frozen whole."""
    argv = ["-m", "tests.support.stack_server", "--port", "0", "--latency", "0.4", "--key", KEY]
    process = subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        yield process, process.stdout.readline().strip()
    finally:
        process.send_signal(signal.SIGCONT)
        process.terminate()
        process.communicate(timeout=10)


def stack_stats(url: str) -> dict:
    return httpx.get(f"{url}/_stats?summary=1", timeout=10).json()


@pytest.mark.parametrize(
    ("window", "timeout"),
    [(0.4, "30"), (30, "2")],
    ids=["a-long-poll-runs-out", "the-deadline-comes-first"],
)
def test_a_frozen_stack_stops_the_run_with_exit_3_and_a_resume_finishes(
    stack_process, cases: Path, tmp_path: Path, window: float, timeout: str
) -> None:
    """Frozen mid-run: exit 3 within the window and margin (or the deadline and margin),
    one line naming the stack, nothing stored errored; thawed, the resume counts all."""
    stack, url = stack_process
    data = tmp_path / "data"
    launch = short_polls(window, 0.6)
    run = start(*run_args(url, cases, "--timeout", timeout), data=data, launch=launch, key=KEY)
    wait_until(run, lambda: recorded(data) >= 3, "no attempt was stored")
    os.kill(stack.pid, signal.SIGSTOP)
    frozen = time.monotonic()
    status, out, err = finish(run, timeout=30)
    took = time.monotonic() - frozen
    assert status == 3, err
    assert took < 6, took
    said = [line for line in err.splitlines() if line.startswith("passk-tui: stack at")]
    assert len(said) == 1, err
    assert said[0].startswith(f"passk-tui: stack at {url} stopped answering: no request answered")
    assert "--resume ev_" in err and "Traceback" not in err and out == ""
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        stored = store.load(summary.id)
    assert summary.status == "failed"
    assert 3 <= len(stored.records) < 3 * ATTEMPTS
    assert all(r.outcome is Outcome.PASSED for r in stored.records), [
        (r.case, r.attempt, r.status, r.error) for r in stored.records
    ]

    os.kill(stack.pid, signal.SIGCONT)
    status, out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert (status, out) == (0, ALL_PASSED), err
    stats = stack_stats(url)
    assert (stats["runs_created"], stats["max_runs_per_key"]) == (3 * ATTEMPTS, 1)
    assert stats["cancels"] == 0  # the Runs in flight were left to end, then replayed


def test_a_slow_turn_whose_polls_are_answered_is_not_an_outage(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """Turns of 1.2 s against polls of 0.2 s and a 0.3 s margin: slow, never silent."""
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript(latency=1.2)))
    launch = short_polls(0.2, 0.3)
    args = run_args(stack.url, cases, "--timeout", "30", "--concurrency", "18")
    status, out, err = finish(start(*args, data=tmp_path / "data", launch=launch, key=KEY))
    assert (status, out) == (0, ALL_PASSED), err
    assert stack.stats().count("GET /v1/runs/{id}", 200) >= 3 * ATTEMPTS * 4  # polled throughout


def test_past_its_deadline_with_the_stack_answering_an_attempt_is_timed_out(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """One at a time, so at its deadline nothing else was answered: the stack is asked."""
    script = StackScript(turns={"gamma": TurnScript(latency=None)})  # gamma's Turns never end
    stack = make_stack(keys={KEY: None}, script=script)
    args = run_args(stack.url, cases, "--timeout", "1", "--concurrency", "1", "--attempts", "2")
    started = time.monotonic()
    status, out, err = finish(start(*args, data=tmp_path / "data", key=KEY))
    assert status == 0, err
    assert time.monotonic() - started < 10  # not a 10 s margin per attempt
    assert "gamma  0/2     0      2" in out
    with Store.open(tmp_path / "data" / DB_NAME) as store:
        [summary] = store.list_evaluations()
        gamma = [r for r in store.load(summary.id).records if r.case == "gamma"]
    assert [r.status for r in gamma] == ["timed_out", "timed_out"]
    assert stack.stats().cancelled == 2  # their Runs were cancelled, as for any deadline


async def test_the_app_shows_a_frozen_stack_as_could_not_run_exit_3(
    app_env: Path, stack_process, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Run screen ends as for a refused key: the message, exit 3, no errored cell."""
    monkeypatch.setattr(stack_module, "_MAX_WAIT", 0.4)
    monkeypatch.setattr(stack_module, "ANSWER_MARGIN", 0.6)
    stack, url = stack_process
    cases = app_env / "cases.toml"
    cases.write_text('[[cases]]\nname = "alpha"\ninput = "alpha"\ncheck = { equals = "alpha" }\n')
    settings = Settings(
        agent="demo", version=1, cases_path=str(cases), attempts=12, k=3, concurrency=3, stack=url
    )
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(120, 36)) as pilot:
        app.controller.start_evaluation(settings, KEY)
        progress = app.controller.view.progress
        await wait_for(pilot, lambda: progress.finished >= 3)
        os.kill(stack.pid, signal.SIGSTOP)
        await run_to_end(pilot)
        assert isinstance(app.screen, RunScreen)
        line = str(app.screen.query_one("#run-status", LiveLine).text)
        assert "Could not run" in line and f"stack at {url} stopped answering" in line
        assert sum(progress.errored) == 0 and progress.finished < 12
    assert app.exit_status == 3
    assert "stopped answering" in app.exit_messages()[0]
