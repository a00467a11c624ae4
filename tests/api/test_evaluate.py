"""``passk_tui.evaluate()``: callables sync and async, exceptions, concurrency, store=False,
typed results, and the CLI's messages for bad keywords."""

from __future__ import annotations

import asyncio
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest

import passk_tui
from passk_tui import Case
from passk_tui.core.inputs.schema import BY_NAME
from passk_tui.store import Store
from tests.support import CLI_AGENTS
from tests.support.cli import SEED_TABLE, run

SEED = CLI_AGENTS / "seed.toml"


def scripted(answer: dict[str, Any], attempt: int) -> str:
    """The CLI's scripted agent as a function: the attempt's letter of the script says P (the
    answer), W (a wrong one) or E (an exception)."""
    script = answer["script"]
    letter = script[(attempt - 1) % len(script)]
    if letter == "E":
        raise RuntimeError("scripted failure")
    return answer["answer"] if letter == "P" else "wrong"


async def scripted_async(answer: dict[str, Any], attempt: int) -> str:
    await asyncio.sleep(0)
    return scripted(answer, attempt)


def test_a_sync_callable_prints_the_clis_table(capsys: pytest.CaptureFixture[str]) -> None:
    result = passk_tui.evaluate(scripted, cases=SEED, name="mine", version=1)
    assert capsys.readouterr().out == ""  # the library prints nothing
    print(result.table())
    assert capsys.readouterr().out == SEED_TABLE
    arithmetic, json_shape, summary = result.cases
    assert (arithmetic.passed, arithmetic.wrong, arithmetic.errored) == (3, 2, 0)
    assert arithmetic.pass_at_1 == Fraction(3, 5)
    assert arithmetic.pass_at_k == 1 and arithmetic.pass_hat_k == Fraction(1, 10)
    assert isinstance(arithmetic.pass_hat_k, Fraction)
    assert (json_shape.wrong, json_shape.errored, json_shape.all_passed) == (4, 1, False)
    assert summary.all_passed is True and summary.attempts == 5
    assert (result.agent, result.version, result.gate, result.exit_status) == ("mine", 1, None, 0)


def test_an_async_callable_runs_on_the_loop() -> None:
    threads: set[str] = set()

    async def agent(answer: dict[str, Any], attempt: int) -> str:
        threads.add(threading.current_thread().name)
        return await scripted_async(answer, attempt)

    result = passk_tui.evaluate(agent, cases=SEED)
    assert result.table() + "\n" == SEED_TABLE
    assert threads == {"passk-evaluate"}  # the evaluation's loop ran it, no agent thread
    assert result.agent == "agent" and result.version == 0  # its __name__, version 0


async def test_evaluate_async_inside_a_running_loop() -> None:
    result = await passk_tui.evaluate_async(scripted_async, cases=SEED, store=False)
    assert result.table() + "\n" == SEED_TABLE


async def test_evaluate_inside_a_running_loop_as_in_a_notebook() -> None:
    result = passk_tui.evaluate(scripted, cases=SEED, store=False)
    assert result.table() + "\n" == SEED_TABLE


def test_an_exception_is_an_errored_attempt_with_its_type_and_message() -> None:
    def agent(text: str) -> str:
        raise TimeoutError("the model took too long")

    result = passk_tui.evaluate(agent, cases=[Case("c", "hi", {"equals": "x"})], attempts=2)
    (case,) = result.cases
    assert (case.passed, case.wrong, case.errored) == (0, 0, 2)
    stored = Store.open().load(result.id)
    assert {r.error for r in stored.records} == {"TimeoutError: the model took too long"}
    assert {r.outcome for r in stored.records} == {"errored"}


def test_an_answer_that_is_no_answer_is_errored() -> None:
    result = passk_tui.evaluate(lambda text: None, cases=[Case("c", "hi", {"equals": "x"})], k=1)
    assert result.cases[0].errored == 5
    (error,) = {r.error for r in Store.open().load(result.id).records}
    assert error == "the agent returned None, not an answer"


def test_a_json_answer_is_judged_as_its_json_text() -> None:
    cases = [Case("shape", "give me a person", {"json": {"required": ["name"]}})]
    result = passk_tui.evaluate(lambda text: {"name": "Ada"}, cases=cases, attempts=1, k=1)
    assert result.cases[0].passed == 1


@pytest.mark.parametrize("concurrency", [1, 3])
def test_sync_calls_run_in_threads_up_to_the_concurrency(concurrency: int) -> None:
    in_flight, most = 0, 0
    lock = threading.Lock()
    # Each call waits for `concurrency` calls to be in at once: more threads than that are
    # never in (most == concurrency), fewer would break the barrier (errored attempts).
    together = threading.Barrier(concurrency, timeout=30)

    def agent(text: str) -> str:
        nonlocal in_flight, most
        with lock:
            in_flight += 1
            most = max(most, in_flight)
        together.wait()
        with lock:
            in_flight -= 1
        return text

    cases = [Case(f"c{i}", "x", {"equals": "x"}) for i in range(2)]
    result = passk_tui.evaluate(agent, cases=cases, attempts=6, concurrency=concurrency)
    assert [case.passed for case in result.cases] == [6, 6]
    assert most == concurrency


def test_async_calls_run_on_the_loop_up_to_the_concurrency() -> None:
    in_flight, most = 0, 0

    async def agent(text: str) -> str:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        while in_flight < 4 and most < 4:  # wait until four are in together
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        in_flight -= 1
        return text

    result = passk_tui.evaluate(agent, cases=[Case("c", "x", {"equals": "x"})], attempts=8)
    assert result.cases[0].passed == 8
    assert most == 4  # the default concurrency, never more


def test_a_callable_may_take_which_attempt_it_is_by_keyword() -> None:
    seen: list[tuple[str, int, str]] = []

    def agent(text: str, *, case: str, attempt: int, evaluation: str) -> str:
        seen.append((case, attempt, evaluation))
        return text

    cases = [Case("first", "x", {"equals": "x"}), Case("second", "y", {"equals": "y"})]
    result = passk_tui.evaluate(agent, cases=cases, attempts=3, concurrency=1)
    assert sorted(seen) == [(name, n, result.id) for name in ("first", "second") for n in (1, 2, 3)]


def test_store_false_keeps_nothing() -> None:
    result = passk_tui.evaluate(scripted, cases=SEED, store=False)
    assert result.stored is False
    assert Store.open().list_evaluations() == []


def test_a_stored_evaluation_is_in_history() -> None:
    result = passk_tui.evaluate(scripted, cases=SEED, name="mine", version=2)
    assert result.stored is True
    (row,) = Store.open().list_evaluations()
    assert (row.id, row.agent, row.version) == (result.id, "mine", 2)


def test_cases_as_a_list_in_the_cases_files_forms() -> None:
    cases = [
        Case("upper", "x", {"equals": "HELLO", "ignore_case": True}),
        {"name": "any", "input": {"q": 1}, "check": {"any": [{"regex": "^h"}, {"equals": "z"}]}},
    ]
    result = passk_tui.evaluate(lambda text: "hello", cases=cases, attempts=2, k=1)
    assert [case.passed for case in result.cases] == [2, 2]


def test_the_gate_and_the_exit_status() -> None:
    failing = passk_tui.evaluate(scripted, cases=SEED, require=0.9)
    assert (failing.gate, failing.exit_status) == ("fail", 1)
    assert [case.gate for case in failing.cases] == ["pass", "fail", "pass"]
    undecided = passk_tui.evaluate(scripted, cases=SEED, require="0.2", confidence=0.95)
    assert (undecided.gate, undecided.exit_status) == ("undecided", 4)


def test_intervals_are_the_exact_ones_at_the_evaluations_level() -> None:
    result = passk_tui.evaluate(scripted, cases=SEED, confidence=0.9, store=False)
    arithmetic = result.cases[0]
    exact = binomtest(3, 5).proportion_ci(0.9, method="exact")
    low, high = arithmetic.interval("pass_at_1") or (None, None)
    assert low == pytest.approx(exact.low) and high == pytest.approx(exact.high)
    assert arithmetic.interval() == arithmetic.interval("pass_at_k")
    assert result.level == 0.9 and result.method == "clopper-pearson"
    with pytest.raises(passk_tui.InputError, match="no figure 'pass_at_2'"):
        arithmetic.interval("pass_at_2")  # type: ignore[arg-type]


def test_progress_is_told_as_each_attempt_lands() -> None:
    told: list[tuple[int, int]] = []
    passk_tui.evaluate(
        scripted, cases=SEED, progress=lambda done, planned: told.append((done, planned))
    )
    assert told == [(n, 15) for n in range(1, 16)]


@pytest.mark.parametrize(
    ("keywords", "flags"),
    [
        ({"attempts": 0}, ["--attempts", "0"]),
        ({"attempts": 2, "k": 3}, ["--attempts", "2", "--k", "3"]),
        ({"require": 1.5}, ["--require", "1.5"]),
        ({"concurrency": "many"}, ["--concurrency", "many"]),
    ],
)
def test_bad_keywords_raise_the_clis_words_after_the_keyword(
    keywords: dict[str, Any], flags: list[str], tmp_path: Path
) -> None:
    """A typed keyword meets its flag's rules and words; the line names the keyword."""
    with pytest.raises(passk_tui.InputError) as raised:
        passk_tui.evaluate(scripted, cases=SEED, **keywords)
    keyword, words = str(raised.value).split(": ", 1)
    assert keyword in keywords
    cli = run("--agent", "x", "--version", "1", "--cases", str(SEED), *flags, data=tmp_path)
    assert (cli.returncode, cli.stderr) == (2, f"passk-tui: {BY_NAME[keyword].flag}: {words}\n")


@pytest.mark.parametrize(
    ("agent", "cases", "message"),
    [
        (42, [], "agent: a Python callable, a local agent's name or passk_tui.Stack(...), got"),
        (scripted, 42, "cases: a path or a list of passk_tui.Case, got"),
        (scripted, [Case("c", "x")], "cases: item 1: case 'c': no check"),
        (scripted, [Case("c", "x", {"equal": "x"})], "cases: item 1: case 'c': check"),
        (scripted, ["c"], "cases: item 1: a passk_tui.Case or a mapping, got string"),
        (scripted, [], "cases: no cases"),
    ],
)
def test_bad_agents_and_cases_raise_one_line(agent: Any, cases: Any, message: str) -> None:
    with pytest.raises(passk_tui.InputError) as raised:
        passk_tui.evaluate(agent, cases=cases)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_a_local_agent_by_name(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "agents.toml").write_text(
        "[agents.env.versions.1]\n"
        'command = ["python3", "-c", "import os; print(os.environ[\'PASSK_CASE\'], '
        "os.environ['PASSK_ATTEMPT'], os.environ['PASSK_EVALUATION'], 'PASSK_KEY' in os.environ)\"]\n"
    )
    seen: list[str] = []
    cases = [Case("greeting", "hi", {"regex": "^greeting [12] ev_"})]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PASSK_KEY", "sk-never-for-a-program")
        result = passk_tui.evaluate("env", cases=cases, version=1, attempts=2, k=1,
                                    agents=agents / "agents.toml")  # fmt: skip
    assert result.agent == "env" and result.cases[0].passed == 2
    seen = sorted(r.output for r in Store.open().load(result.id).records)
    assert seen == [f"greeting {n} {result.id} False" for n in (1, 2)]


def test_a_stack_agent_and_a_key_never_shown(stack: Any) -> None:
    agent = passk_tui.Stack(stack.url, "demo", key="secret-key")
    assert "secret-key" not in repr(agent) and "key=set" in repr(agent)
    cases = [Case("echo", "hello", {"equals": "hello"})]
    result = passk_tui.evaluate(agent, cases=cases, version=1, attempts=2, k=1, store=False)
    assert result.cases[0].passed == 2 and result.agent == "demo"
    with pytest.raises(passk_tui.RunError):
        passk_tui.evaluate(passk_tui.Stack(stack.url, "demo", key="wrong-key-1"), cases=cases,
                           version=1, attempts=1, k=1, store=False)  # fmt: skip
