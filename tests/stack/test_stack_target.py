"""StackTarget against the test stack: scripted Turns, faults, cancellation, refusals, secrecy."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Sequence

import pytest

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.targets import stack as stack_module
from passk_tui.targets.stack import StackTarget
from tests.support.stack_server import StackScript, StackServer, TurnScript
from tests.support.stack_target import EVALUATION, KEY, planned, target_for, with_key


async def run_all(
    target: StackTarget,
    attempts: Sequence[PlannedAttempt],
    concurrency: int,
    timeout: float = 10.0,
    notices: list[tuple[str, float]] | None = None,
) -> list[Turn]:
    """What the engine will do: a semaphore, a deadline per attempt, cancel past it."""
    gate = asyncio.Semaphore(concurrency)
    loop = asyncio.get_running_loop()

    def notify(reason: str, delay: float) -> None:
        if notices is not None:
            notices.append((reason, delay))

    async def one(attempt: PlannedAttempt) -> Turn:
        async with gate:
            deadline = loop.time() + timeout
            task = asyncio.ensure_future(target.execute(attempt, deadline, notify))
            done, _ = await asyncio.wait({task}, timeout=timeout)
            if done:
                return task.result()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return Turn("timed_out", error="attempt deadline passed")

    return list(await asyncio.gather(*(one(a) for a in attempts)))


async def test_scripted_outcomes_come_back_as_turns(make_stack) -> None:
    script = {
        "ok": TurnScript(output="391", latency=0.01, usage={"input_tokens": 4, "output_tokens": 1}),
        "json": TurnScript(output={"name": "a", "age": 3}, latency=0.01),
        "broken": TurnScript(status="failed", error={"code": "tool_error", "message": "boom"}),
        "partial": TurnScript(status="stopped", output="half"),
        "slow": TurnScript(status="timed_out", error="ran out of time", latency=0.02),
        "gone": TurnScript(status="cancelled", latency=0),
    }
    server = make_stack(**with_key(script=StackScript(script)))
    target = target_for(server)
    await target.prepare()
    turns = await run_all(target, planned([*script, "echo"], 1), concurrency=4)
    await target.aclose()
    by_case = dict(zip([*script, "echo"], turns, strict=True))
    ok = by_case["ok"]
    assert (ok.status, ok.output, ok.error, ok.usage) == (
        "completed",
        "391",
        None,
        {"input_tokens": 4, "output_tokens": 1},
    )
    assert ok.run_id.startswith("run_") and ok.turn_id.startswith("turn_")
    assert by_case["json"].output == {"name": "a", "age": 3}
    assert (by_case["broken"].status, by_case["broken"].error) == ("failed", "tool_error: boom")
    assert (by_case["partial"].status, by_case["partial"].output) == ("stopped", "half")
    assert by_case["slow"].status == "timed_out"
    assert by_case["slow"].error == "agent_error: ran out of time"
    assert by_case["gone"].status == "cancelled"
    assert (by_case["echo"].status, by_case["echo"].output) == ("completed", "echo")
    assert server.stats().runs_created == 7


async def test_long_polls_until_the_turn_ends(make_stack, monkeypatch) -> None:
    monkeypatch.setattr(stack_module, "_MAX_WAIT", 0.05)  # as if Turns outlived 30 s
    server = make_stack(**with_key(script=StackScript(default=TurnScript(latency=0.2))))
    target = target_for(server)
    turns = await run_all(target, planned(["a", "b"], 2), concurrency=4)
    await target.aclose()
    assert [t.status for t in turns] == ["completed"] * 4
    stats = server.stats()
    assert stats.count("GET /v1/runs/{id}", 200) >= 4 and stats.runs_created == 4


async def test_faults_never_run_an_attempt_twice(make_stack) -> None:
    def script(case: str, attempt: int) -> TurnScript:
        return TurnScript(output=f"{case}/{attempt}", latency=0.02)

    faults = {"rate_429": 0.15, "rate_503": 0.10, "rate_lost": 0.10, "seed": 3}
    server = make_stack(**with_key(script=StackScript(script), **faults))
    target = target_for(server, concurrency=20)
    attempts = planned([f"case{n}" for n in range(20)], 10)
    notices: list[tuple[str, float]] = []
    started = time.monotonic()
    turns = await run_all(target, attempts, concurrency=20, notices=notices)
    elapsed = time.monotonic() - started
    await target.aclose()
    for attempt, turn in zip(attempts, turns, strict=True):
        assert (turn.status, turn.output) == ("completed", f"{attempt.case.name}/{attempt.attempt}")
    stats = server.stats()
    assert stats.runs_created == len(attempts)
    assert stats.runs_by_key == {a.key: 1 for a in attempts}
    assert stats.replays > 0 and stats.lost > 0
    assert stats.count("POST /v1/runs", 429) > 0 and stats.count("POST /v1/runs", 503) > 0
    reasons = {reason for reason, _ in notices}
    assert {"429 rate limited", "503 unavailable", "connection lost"} <= reasons
    assert all(0 <= delay <= 5.0 for _, delay in notices)
    assert elapsed < 8


async def test_faults_on_long_polls_too(make_stack, monkeypatch) -> None:
    monkeypatch.setattr(stack_module, "_MAX_WAIT", 0.03)
    faults = {"rate_429": 0.15, "rate_503": 0.10, "rate_lost": 0.10, "seed": 5}
    server = make_stack(**with_key(script=StackScript(default=TurnScript(latency=0.15)), **faults))
    target = target_for(server, concurrency=10)
    attempts = planned([f"c{n}" for n in range(10)], 3)
    turns = await run_all(target, attempts, concurrency=10)
    await target.aclose()
    assert [t.status for t in turns] == ["completed"] * len(attempts)
    stats = server.stats()
    assert stats.runs_by_key == {a.key: 1 for a in attempts}
    assert stats.count("GET /v1/runs/{id}", "lost") + stats.count("GET /v1/runs/{id}", 503) > 0


async def test_never_more_runs_in_flight_than_the_concurrency(make_stack) -> None:
    # Hanging Turns are cancelled at their deadline; a Run left running would push the
    # stack past the cap once the next attempts start.
    def script(case: str, attempt: int) -> TurnScript | None:
        return TurnScript(latency=None) if attempt == 1 and case < "c10" else None

    faults = {"rate_429": 0.1, "rate_lost": 0.1, "seed": 11}
    default = TurnScript(latency=0.03)
    server = make_stack(**with_key(script=StackScript(script, default), **faults))
    target = target_for(server, concurrency=7)
    attempts = planned([f"c{n:02d}" for n in range(30)], 3)
    turns = await run_all(target, attempts, concurrency=7, timeout=0.4)
    await target.aclose()
    assert sum(t.status == "timed_out" for t in turns) == 10
    assert sum(t.status == "completed" for t in turns) == len(attempts) - 10
    stats = server.stats()
    assert 5 <= stats.in_flight_peak <= 7  # reached the cap, never past it
    assert (stats.in_flight, stats.cancelled, stats.runs_created) == (0, 10, len(attempts))


@pytest.mark.parametrize("max_wait", [30.0, 0.05], ids=["inside-first-post", "long-polling"])
async def test_cancel_past_the_deadline_cancels_the_run(make_stack, monkeypatch, max_wait) -> None:
    monkeypatch.setattr(stack_module, "_MAX_WAIT", max_wait)
    script = StackScript({"hang": TurnScript(latency=None)})
    server = make_stack(**with_key(script=script))
    target = target_for(server)
    started = time.monotonic()
    turns = await run_all(target, planned(["hang", "quick"], 1), concurrency=2, timeout=0.3)
    elapsed = time.monotonic() - started
    assert [t.status for t in turns] == ["timed_out", "completed"]
    assert elapsed < 0.8  # the deadline plus one round trip, not a long poll
    # The cancel may still be on its way (shielded, finishing in the background): aclose
    # waits for it, as the engine's faces do before they report.
    await target.aclose()
    stats = server.stats()
    assert (stats.cancelled, stats.in_flight, stats.runs_created) == (1, 0, 2)
    assert server.run_for("hang", 1)["turn"]["status"] == "cancelled"


async def test_deadline_while_retrying_gives_a_timed_out_turn(make_stack, monkeypatch) -> None:
    monkeypatch.setattr(stack_module, "_CLEANUP_BUDGET", 0.3)  # the cancel gets 503s too
    server = make_stack(**with_key(rate_503=1.0, retry_after="0.05"))
    target = target_for(server)
    loop = asyncio.get_running_loop()
    notices: list[tuple[str, float]] = []
    attempt = planned(["a"], 1)[0]
    turn = await target.execute(attempt, loop.time() + 0.4, lambda r, d: notices.append((r, d)))
    await target.aclose()
    assert turn.status == "timed_out"
    assert turn.error == "deadline passed (503 unavailable)"
    assert notices and all(reason == "503 unavailable" for reason, _ in notices)


async def test_409_and_422_fail_the_attempt(stack: StackServer) -> None:
    stack.config.keys = {KEY: None}
    first, second = target_for(stack, version=1), target_for(stack, version=2)
    attempt = planned(["a"], 1)[0]
    assert (await run_all(first, [attempt], 1))[0].status == "completed"
    clash = (await run_all(second, [attempt], 1))[0]
    assert clash == Turn("failed", error="idempotency key reused with a different body (409)")
    malformed = target_for(stack, version="1")  # a string version: the stack refuses the body
    bad = (await run_all(malformed, planned(["b"], 1), 1))[0]
    assert (bad.status, bad.error) == ("failed", "invalid_request: version: an integer is required")
    for target in (first, second, malformed):
        await target.aclose()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize(
    ("key", "agent", "version", "expected"),
    [
        ("sk-wrong-SECRET", "demo", 1, ": key refused (401 unauthorized)"),
        (None, "demo", 1, ": key refused (401 unauthorized)"),
        ("forbidden", "demo", 1, ": key has no access to agent 'demo' (403 forbidden)"),
        (KEY, "nope", 1, ": agent 'nope' not found"),
        (KEY, "demo", 7, ": agent 'demo' has no version 7 (versions: 1, 2, 3)"),
    ],
)
async def test_prepare_refusals_are_one_line_run_errors(
    make_stack, key, agent, version, expected
) -> None:
    server = make_stack(**with_key())
    target = StackTarget(server.url, key, agent, version, EVALUATION, 4)
    with pytest.raises(RunError) as caught:
        await target.prepare()
    await target.aclose()
    message = str(caught.value)
    assert message == f"stack at {server.url}{expected}"
    assert "\n" not in message and caught.value.__cause__ is None
    assert (key or "<none>") not in message or key == "forbidden"
    assert server.stats().runs_created == 0


async def test_unreachable_stack_is_a_run_error() -> None:
    url = closed_port_url()
    target = StackTarget(url, KEY, "demo", 1, EVALUATION, 4)
    with pytest.raises(RunError) as caught:
        await target.prepare()
    await target.aclose()
    assert str(caught.value) == f"stack at {url} unreachable: connection refused"


@pytest.mark.parametrize("url", ["stack.example.com", "ftp://stack.example.com", "http://"])
async def test_a_malformed_stack_address_is_bad_input(url: str) -> None:
    target = StackTarget(url, KEY, "demo", 1, EVALUATION, 4)
    with pytest.raises(InputError, match="not an http:// or https:// address"):
        await target.prepare()
    await target.aclose()


async def test_prepare_rides_out_transient_errors(make_stack) -> None:
    server = make_stack(**with_key(rate_429=0.3, rate_503=0.3, seed=2))
    for _ in range(5):
        target = target_for(server)
        await target.prepare()
        assert await target.versions() == [1, 2, 3]
        await target.aclose()
    assert server.stats().count("GET /v1/agents", 200) == 5


async def test_key_refused_mid_run_stops_the_evaluation(stack: StackServer) -> None:
    stack.config.keys = {KEY: None}
    target = target_for(stack)
    await target.prepare()
    stack.config.keys = {"rotated": None}
    with pytest.raises(RunError) as caught:
        await run_all(target, planned(["a"], 1), 1)
    await target.aclose()
    assert str(caught.value) == f"stack at {stack.url}: key refused (401 unauthorized)"
    assert stack.stats().runs_created == 0


async def test_same_key_across_retries_distinct_across_attempts(make_stack) -> None:
    faults = {"rate_429": 0.15, "rate_503": 0.1, "rate_lost": 0.1, "seed": 9}
    server = make_stack(**with_key(script=StackScript(default=TurnScript(latency=0.01)), **faults))
    target = target_for(server, concurrency=10)
    attempts = planned(["a", "b", "c", "d"], 5)
    await run_all(target, attempts, concurrency=10)
    await target.aclose()
    stats = server.stats()
    seen = stats.keys_by_attempt
    assert seen == {f"{a.case.name}#{a.attempt}": [a.key] for a in attempts}
    assert len({a.key for a in attempts}) == len(attempts)
    assert stats.count("POST /v1/runs") > len(attempts)  # there were retries to compare


async def test_the_key_never_shows(make_stack) -> None:
    faults = {"rate_429": 0.2, "rate_503": 0.2, "rate_lost": 0.2, "seed": 4}
    server = make_stack(
        **with_key(script=StackScript({"bad": TurnScript(status="failed")}), **faults)
    )
    target = target_for(server)
    assert KEY not in repr(target) and "key=set" in repr(target)
    assert KEY not in repr(vars(target))  # what a traceback with locals would show of it
    notices: list[tuple[str, float]] = []
    turns = await run_all(target, planned(["bad", "good"], 4), 4, notices=notices)
    texts = [repr(t) for t in turns] + [reason for reason, _ in notices]
    server.config.keys = {"other": None}
    for call in (target.prepare(), run_all(target, planned(["x"], 1), 1)):
        with pytest.raises(RunError) as caught:
            await call
        texts += [str(caught.value), repr(caught.value)]
        assert caught.value.__cause__ is None and caught.value.__context__ is None
    await target.aclose()
    assert notices and not [text for text in texts if KEY in text]


async def test_a_malformed_answer_is_retried_without_leaking_headers(monkeypatch) -> None:
    monkeypatch.setattr(stack_module, "_CLEANUP_BUDGET", 0.3)

    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        writer.write(b"HTTP/1.1 2xx nonsense\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(garbage, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    target = StackTarget(url, KEY, "demo", 1, EVALUATION, 2)
    notices: list[tuple[str, float]] = []
    loop = asyncio.get_running_loop()
    attempt = planned(["a"], 1)[0]
    turn = await target.execute(attempt, loop.time() + 0.3, lambda r, d: notices.append((r, d)))
    await target.aclose()
    server.close()
    assert turn.status == "timed_out" and turn.error == "deadline passed (malformed response)"
    assert {reason for reason, _ in notices} == {"malformed response"}
