"""Adaptive runs and extensions over real HTTP against the test stack: one Run per key, always."""

from __future__ import annotations

import asyncio
import functools
import signal
import subprocess
import time
from pathlib import Path

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.run.attempt_keys import idempotency_key
from passk_tui.store import DB_NAME, Store
from tests.support.cli import finish, start
from tests.support.resume import CASES, KEY, recorded, start_args
from tests.support.stack_server import StackScript, TurnScript


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    return path


def flaky_script(latency: float) -> StackScript:
    """alpha always passes, beta on odd attempts only, gamma never (a wrong answer)."""

    def turn(case: str, attempt: int) -> TurnScript:
        if case == "gamma" or (case == "beta" and attempt % 2 == 0):
            return TurnScript(output="no", latency=latency)
        return TurnScript(latency=latency)

    return StackScript(turns=turn)


def table_counts(out: str) -> dict[str, str]:
    """The ``passed`` cell of each case in the plain table."""
    return {line.split()[0]: line.split()[1] for line in out.splitlines()[2:]}


def stored(data: Path):
    with Store.open(data / DB_NAME) as store:
        return store.load(store.resolve("last"))


def test_extend_with_attempts_then_adaptively_runs_each_key_once(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    stack = make_stack(keys={KEY: None}, script=flaky_script(0.02))
    data = tmp_path / "data"
    first = [*start_args(stack, cases, "--concurrency", "1")]
    first[first.index("--attempts") + 1] = "3"
    code, out, err = finish(start(*first, data=data, key=KEY))
    assert code == 0, err
    assert table_counts(out) == {"alpha": "3/3", "beta": "2/3", "gamma": "0/3"}

    code, out, err = finish(start("--resume", "last", "--attempts", "5", data=data, key=KEY))
    assert code == 0, err
    assert table_counts(out) == {"alpha": "5/5", "beta": "3/5", "gamma": "0/5"}
    stats = stack.stats()
    assert stats.runs_created == 15 and set(stats.runs_by_key.values()) == {1}

    code, out, err = finish(
        start("--resume", "last", "--max-attempts", "12", "--require", "0.8", data=data, key=KEY)
    )
    # gamma fails the gate (exit 1); beta (half its attempts pass) stays undecided at the cap.
    assert code == 1, err
    assert table_counts(out) == {"alpha": "6/6", "beta": "6/12", "gamma": "0/9"}
    assert "stop: alpha: decided pass at 6" in err
    assert "stop: beta: capped at 12 undecided" in err
    assert "stop: gamma: decided fail at 9" in err
    assert "anytime-valid (beta-binomial mixture)" in err
    stats = stack.stats()
    assert stats.runs_created == 27 and set(stats.runs_by_key.values()) == {1}
    evaluation = stored(data)
    assert evaluation.settings.attempts == 5 and evaluation.settings.max_attempts == 12
    assert {str(r) for r in evaluation.stop_reasons.values()} == {
        "decided pass at 6", "capped at 12 undecided", "decided fail at 9",
    }  # fmt: skip
    assert {r.key for r in evaluation.records} == set(stats.runs_by_key)

    code, out, err = finish(start("--resume", "last", "--max-attempts", "11", data=data, key=KEY))
    assert code == 2 and err.count("\n") == 1 and "fewer than the 12 stored" in err


def test_sigkill_mid_adaptive_run_then_resume_gives_one_run_per_key(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    stack = make_stack(keys={KEY: None}, script=flaky_script(0.3))
    data = tmp_path / "data"
    args = start_args(stack, cases, "--concurrency", "4", "--max-attempts", "12")
    args[args.index("--attempts") + 1] = "3"
    process = start(*args, "--require", "0.8", data=data, key=KEY)
    deadline = time.monotonic() + 30
    # Kill past the first pass, with extra attempts in flight on the stack.
    while True:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no attempt was stored in time"
        if recorded(data) >= 12 and stack.stats().in_flight > 0:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    kept = recorded(data)

    code, out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert code == 1, err
    stats = stack.stats()
    assert set(stats.runs_by_key.values()) == {1}, stats.runs_by_key
    evaluation = stored(data)
    assert len(evaluation.records) > kept
    # Every Run ran once and is counted: those in flight at the kill were replayed, even
    # above the last record of a case decided by then.
    assert {r.key for r in evaluation.records} == set(stats.runs_by_key)
    assert len(evaluation.records) == stats.runs_created
    # Each case stopped where its outcomes by attempt number say, whatever the kill cut.
    assert {evaluation.cases[i].name: str(r) for i, r in evaluation.stop_reasons.items()} == {
        "alpha": "decided pass at 6",
        "beta": "capped at 12 undecided",
        "gamma": "decided fail at 9",
    }
    counts = table_counts(out)
    for index, case in enumerate(evaluation.cases):
        mine = [r for r in evaluation.records if r.case_index == index]
        passed = sum(r.outcome.value == "passed" for r in mine)
        assert counts[case.name] == f"{passed}/{len(mine)}"
        assert sorted(r.attempt for r in mine) == list(range(1, len(mine) + 1))


def overtaking_script() -> StackScript:
    """flaky_script's outcomes, with latencies that let later attempts finish first; and the
    attempts past where alpha and gamma are decided slow, so that a kill finds them in flight."""

    def turn(case: str, attempt: int) -> TurnScript:
        latency = 0.02 * (1 + (attempt * 5 + len(case)) % 4)
        if (case, attempt) in (("alpha", 7), ("gamma", 10)):
            latency = 0.6
        if case == "gamma" or (case == "beta" and attempt % 2 == 0):
            return TurnScript(output="no", latency=latency)
        return TurnScript(latency=latency)

    return StackScript(turns=turn)


def on_disk(data: Path) -> set[str]:
    """The keys the store holds: finished or withdrawn attempts, and those in flight."""
    evaluation = stored(data)
    names = [case.name for case in evaluation.cases]
    return {r.key for r in evaluation.records + evaluation.withdrawn} | {
        idempotency_key(evaluation.id, names[s.case_index], s.attempt, s.retake)
        for s in evaluation.in_flight
    }


def kill_at(k: int, process: list[subprocess.Popen[str]], created: int) -> None:
    """The stack's hook: SIGKILL the client as its k-th Run is created, before any answer."""
    if created == k:
        process[0].kill()


def test_a_kill_at_any_run_leaves_each_started_run_stored_or_replayed_once(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """kill -9 as the stack starts its k-th Run: every Run it started is on disk, and the
    resume replays each one in flight (same key) before its policy decides anything."""
    for k in range(6, 27, 4):
        killed: list[subprocess.Popen[str]] = []
        stack = make_stack(keys={KEY: None}, script=overtaking_script())
        stack.config.on_run_created = functools.partial(kill_at, k, killed)
        data = tmp_path / f"kill{k}"
        args = start_args(stack, cases, "--concurrency", "4", "--max-attempts", "12")
        args[args.index("--attempts") + 1] = "3"
        killed.append(start(*args, "--require", "0.8", data=data, key=KEY))
        assert killed[0].wait(timeout=30) == -signal.SIGKILL, killed[0].communicate()
        started = set(stack.stats().runs_by_key)
        # (Requests sent just before the kill may reach the stack after it.)
        assert len(started) >= k and started <= on_disk(data), f"kill at Run {k}"
        unfinished = started - {r.key for r in stored(data).records}

        code, out, err = finish(start("--resume", "last", data=data, key=KEY))
        assert code == 1, err
        stats = stack.stats()
        evaluation = stored(data)
        assert set(stats.runs_by_key.values()) == {1}, f"kill at Run {k}: {stats.runs_by_key}"
        assert {r.key for r in evaluation.records} == set(stats.runs_by_key), f"kill at Run {k}"
        assert len(evaluation.records) == stats.runs_created and not evaluation.in_flight
        assert stats.replays >= len(unfinished) > 0  # each one in flight, asked for again
        assert {evaluation.cases[i].name: str(r) for i, r in evaluation.stop_reasons.items()} == {
            "alpha": "decided pass at 6",
            "beta": "capped at 12 undecided",
            "gamma": "decided fail at 9",
        }
        counts = table_counts(out)
        for index, case in enumerate(evaluation.cases):
            mine = [r for r in evaluation.records if r.case_index == index]
            passed = sum(r.outcome.value == "passed" for r in mine)
            assert counts[case.name] == f"{passed}/{len(mine)}"


async def run_closing(evaluation) -> str:
    try:
        return await evaluation.run()
    finally:
        await evaluation.target.aclose()


def test_extend_evaluation_for_the_app_says_how_many_runs_at_most_and_runs_them(
    stack, cases: Path, tmp_path: Path
) -> None:
    """The session call the app's "more attempts" makes: most_left before, one Run per key after."""
    from passk_tui.core.inputs.settings import Settings
    from passk_tui.evaluations.new import new_evaluation
    from passk_tui.evaluations.resume import extend_evaluation

    stack.config.script = flaky_script(0.01)
    settings = Settings(
        agent="demo", version=1, cases_path=str(cases), attempts=3, k=3, stack=stack.url
    )
    with Store.open(tmp_path / "s.db") as store:
        first = new_evaluation(settings, "secret-key", store=store)
        assert asyncio.run(run_closing(first)) == "done"
        with pytest.raises(InputError, match="fewer than the 3 stored"):
            extend_evaluation(first.evaluation_id, "secret-key", attempts=2, store=store)
        more = extend_evaluation(first.evaluation_id, "secret-key", max_attempts=20, store=store)
        # No --require: the precision rule (0.2 wide); none is decided at 3, so 3 x 17 at most.
        assert more.evaluation.policy.most_left() == 3 * 17 and not more.finished
        assert asyncio.run(run_closing(more.evaluation)) == "done"
        stored_now = store.load(first.evaluation_id)
    stats = stack.stats()
    assert set(stats.runs_by_key.values()) == {1}
    assert stats.runs_created == len(stored_now.records) <= 9 + 3 * 17
    assert {str(r) for r in stored_now.stop_reasons.values()} <= {
        "capped at 20 undecided",
        *(f"precise at {n}" for n in range(3, 21)),
    }
    assert len(stored_now.stop_reasons) == 3 and stored_now.settings.max_attempts == 20


def test_confidence_and_precision_are_kept_for_the_resume(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    stack = make_stack(keys={KEY: None}, script=flaky_script(0.01))
    data = tmp_path / "data"
    args = start_args(stack, cases, "--max-attempts", "6", "--precision", "0.9")
    code, out, err = finish(start(*args, "--confidence", "0.9", data=data, key=KEY))
    assert code == 0, err
    assert "pass@3 90% CI" in out.splitlines()[0]
    # 4 attempts give a pass@1 interval under 0.9 wide at 90% for every case: precise at 4.
    assert err.count("precise at 4") == 3, err
    code, out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert code == 0, err
    assert "pass@3 90% CI" in out.splitlines()[0]
    assert err.count("precise at 4") == 3, err
    assert stack.stats().max_runs_per_key == 1
