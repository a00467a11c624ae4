"""Budgets and money against the test stack: held exactly under concurrency and faults, counted
by the stack itself, across a kill and its resume; cost exact against the usage it reported."""

from __future__ import annotations

import functools
import json
import signal
import subprocess
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from passk_tui.store import DB_NAME, Store
from tests.support.cli import finish, start
from tests.support.resume import KEY, start_args
from tests.support.stack_server import StackScript, TurnScript


def stored(data: Path):
    with Store.open(data / DB_NAME) as store:
        [summary] = store.list_evaluations()
        return store.load(summary.id)


def kill_at(k: int, process: list[subprocess.Popen[str]], created: int) -> None:
    """The stack's hook: SIGKILL the client as its k-th Run is created, before any answer."""
    if created == k:
        process[0].kill()


def mixed_script() -> StackScript:
    """Passes, wrong answers and failed Turns, each Turn with usage that differs by attempt."""

    def turn(case: str, attempt: int) -> TurnScript:
        usage = {"input_tokens": 40 + attempt, "output_tokens": 3 * attempt}
        if case == "beta" and attempt % 2 == 0:
            return TurnScript(output="not beta", usage=usage)
        if case == "gamma" and attempt % 3 == 0:
            return TurnScript(status="failed", error="tool crashed", usage=usage)
        return TurnScript(usage=usage)

    return StackScript(turns=turn)


def test_a_run_budget_is_held_exactly_under_concurrency_and_faults(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """Eight at once, with 429s, 503s and lost answers: the stack starts exactly N Runs."""
    stack = make_stack(
        keys={KEY: None},
        script=mixed_script(),
        rate_429=0.2,
        rate_503=0.2,
        rate_lost=0.15,
        seed=3,
    )
    data = tmp_path / "data"
    args = start_args(stack, cases, "--concurrency", "8", "--budget-runs", "7")
    code, _out, err = finish(
        start(*args, "--export", str(tmp_path / "out.json"), data=data, key=KEY)
    )
    assert code == 0, err
    stats = stack.stats()
    assert stats.runs_created == 7 and stats.max_runs_per_key == 1
    evaluation = stored(data)
    assert len(evaluation.records) == 7 and evaluation.status_reason == "budget spent"
    assert "passk-tui: budget spent: 3 cases got fewer attempts than planned" in err
    document = json.loads((tmp_path / "out.json").read_text())
    assert document["evaluation"]["status_reason"] == "budget spent"
    assert document["evaluation"]["budget"]["short_of_plan"] == ["alpha", "beta", "gamma"]


def test_a_resume_counts_against_the_same_budget(make_stack, cases: Path, tmp_path: Path) -> None:
    """Killed as its 5th Run starts, resumed with the budget stored: 9 Runs on the stack in all,
    the ones in flight replayed under their keys, not started again."""
    killed: list[subprocess.Popen[str]] = []
    stack = make_stack(keys={KEY: None}, script=mixed_script())
    stack.config.on_run_created = functools.partial(kill_at, 5, killed)
    data = tmp_path / "data"
    killed.append(
        start(
            *start_args(stack, cases, "--concurrency", "3", "--budget-runs", "9"),
            data=data,
            key=KEY,
        )
    )
    assert killed[0].wait(timeout=30) == -signal.SIGKILL
    stack.config.on_run_created = None
    code, _out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert code == 0, err
    stats = stack.stats()
    assert stats.runs_created == 9 and stats.max_runs_per_key == 1
    evaluation = stored(data)
    assert len(evaluation.records) == 9 and evaluation.status_reason == "budget spent"
    # Resumed again: the budget is spent, nothing starts.
    code, _out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert code == 0 and stack.stats().runs_created == 9, err
    assert "budget spent" in err
    # A larger budget given again is refused (it would spend the budget again), in one line,
    # with nothing started; a smaller one is taken.
    code, _out, err = finish(start("--resume", "last", "--budget-runs", "12", data=data, key=KEY))
    assert code == 2 and stack.stats().runs_created == 9, err
    assert err == (
        f"passk-tui: --resume {evaluation.id}: --budget-runs 12 would raise its budget "
        "(stored: 9); a budget holds across resumes: start a new evaluation to spend more\n"
    )
    code, _out, err = finish(start("--resume", "last", "--budget-runs", "5", data=data, key=KEY))
    assert code == 0 and stack.stats().runs_created == 9, err


def test_a_baseline_pair_says_its_budget_holds_for_each_version(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """Each version is its own evaluation with its own budget (PRODUCT.md: "started by this
    evaluation"): 6 Runs each, 12 on the stack, and said before any starts."""
    stack = make_stack(keys={KEY: None}, script=mixed_script())
    data = tmp_path / "data"
    args = start_args(stack, cases, "--version", "2", "--baseline", "1", "--budget-runs", "6")
    code, _out, err = finish(start(*args, data=data, key=KEY))
    assert code == 0, err
    assert err.startswith(
        "passk-tui: warning: the budget holds for each version apart: "
        "--budget-runs 6 lets up to 12 Runs start (6 per version)\n"
    )
    assert stack.stats().runs_created == 12
    with Store.open(data / DB_NAME) as store:
        counts = [len(store.load(e.id).records) for e in store.list_evaluations()]
    assert counts == [6, 6]
    # Each version's end is said as a single run's is (before, the pair said nothing of it).
    for side in ("A (version 1)", "B (version 2)"):
        assert f"\npassk-tui: {side} budget spent: " in err, err


def test_cost_is_exact_against_the_usage_the_stack_reported(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """Every Turn's usage, priced by hand: the .json's costs are those exact decimals,
    errored attempts included, and the cost per pass the case's cost over its passes."""
    stack = make_stack(keys={KEY: None}, script=mixed_script())
    data, out_json = tmp_path / "data", tmp_path / "out.json"
    args = start_args(stack, cases, "--price-in", "0.15", "--price-out", "0.6")
    code, _out, err = finish(start(*args, "--export", str(out_json), data=data, key=KEY))
    assert code == 0, err
    price_in, price_out = Fraction("0.15"), Fraction("0.6")
    expected: dict[str, Fraction] = {}
    tokens: dict[str, list[int]] = {}
    for run in stack.runs():
        usage = run["turn"]["usage"]
        case = run["metadata"]["case"]
        spent = (usage["input_tokens"] * price_in + usage["output_tokens"] * price_out) / 10**6
        expected[case] = expected.get(case, Fraction(0)) + spent
        tokens.setdefault(case, []).append(usage["input_tokens"])
    document = json.loads(out_json.read_text(), parse_float=Decimal)
    for case in document["cases"]:
        name, passed = case["name"], case["figures"]["passed"]
        assert Fraction(case["cost"]) == expected[name]
        assert Fraction(case["cost_per_pass"]) == expected[name] / passed
        assert case["tokens"]["input"] == sum(tokens[name])
    assert Fraction(document["evaluation"]["cost"]) == sum(expected.values())
    assert "passk-tui: cost $" in err


def test_a_cost_budget_starts_nothing_once_spent(make_stack, cases: Path, tmp_path: Path) -> None:
    """One at a time, each Turn costing the same: it stops at the first attempt past the budget."""
    script = StackScript(default=TurnScript(usage={"input_tokens": 1000, "output_tokens": 0}))
    stack = make_stack(keys={KEY: None}, script=script)
    data = tmp_path / "data"
    # 1,000 tokens at 1 per million: $0.001 a Run; $0.0045 is spent after the 5th.
    args = start_args(stack, cases, "--concurrency", "1", "--price-in", "1", "--price-out", "1")
    code, _out, err = finish(start(*args, "--budget-cost", "0.0045", data=data, key=KEY))
    assert code == 0, err
    assert stack.stats().runs_created == 5
    assert "budget spent" in err


def test_an_adaptive_budget_resumed_after_a_kill_starts_exactly_n(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    """Adaptive, closest-first, killed as its 7th Run starts: the resume replays what was in
    flight and the stack starts 14 Runs in all, never one more."""
    killed: list[subprocess.Popen[str]] = []
    stack = make_stack(keys={KEY: None}, script=mixed_script(), rate_503=0.1, seed=5)
    stack.config.on_run_created = functools.partial(kill_at, 7, killed)
    data = tmp_path / "data"
    args = start_args(stack, cases, "--concurrency", "4", "--max-attempts", "12")
    args[args.index("--attempts") + 1] = "3"
    killed.append(start(*args, "--require", "0.8", "--budget-runs", "14", data=data, key=KEY))
    assert killed[0].wait(timeout=30) == -signal.SIGKILL
    stack.config.on_run_created = None
    code, _out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert code in (0, 1, 4), err
    stats = stack.stats()
    assert stats.runs_created == 14 and stats.max_runs_per_key == 1
    evaluation = stored(data)
    assert len(evaluation.records) == 14 and not evaluation.in_flight
    assert evaluation.status_reason == "budget spent"
