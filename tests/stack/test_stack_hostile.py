"""StackTarget against a hostile test stack: slow-loris answers, malformed 2xx, a stack that dies."""

from __future__ import annotations

import asyncio

import pytest

from passk_tui.core.errors import RunError
from passk_tui.core.run.target import LEAVE_RUNNING
from passk_tui.targets import reachability
from passk_tui.targets import stack as stack_module
from tests.support.stack_server import StackScript, TurnScript
from tests.support.stack_target import one_attempt, planned, target_for, with_key


async def test_a_slow_loris_stack_cannot_stretch_the_deadline(make_stack) -> None:
    """Every request, the cancel too, is over by its bound however slowly the stack trickles.

    Each answer here is ~300 bytes at 0.5 s a byte: read whole, one answer takes
    minutes. Bounded, the attempt's 1 s and the cancel's 2 s let only a few bytes out.
    """
    server = make_stack(**with_key(script=StackScript(default=TurnScript(latency=0.05))))
    target = target_for(server)
    await target.prepare()
    server.config.dribble = 0.5
    loop = asyncio.get_running_loop()
    attempt = planned(["a"], 1)[0]
    task = asyncio.ensure_future(target.execute(attempt, loop.time() + 1.0, lambda r, d: None))
    done, _ = await asyncio.wait({task}, timeout=1.0)
    if not done:
        task.cancel()
    await asyncio.wait({task})
    await target.aclose()
    assert server.stats().dribbled < 20  # a whole answer is ~300


async def test_malformed_2xx_backs_off_instead_of_spinning(make_stack) -> None:
    """A Run whose Turn status runs-api.md does not know is malformed, resent with backoff."""
    server = make_stack(**with_key(malformed=True))
    target = target_for(server)
    await target.prepare()
    loop = asyncio.get_running_loop()
    turn = await target.execute(planned(["a"], 1)[0], loop.time() + 2.0, lambda r, d: None)
    await target.aclose()
    stats = server.stats()
    assert (turn.status, turn.error) == ("timed_out", "deadline passed (malformed response)")
    runs_requests = stats.count("POST /v1/runs") + stats.count("GET /v1/runs/{id}")
    assert runs_requests < 25  # polled at once, it was ~30 a second


async def test_a_stack_that_dies_mid_run_stops_the_attempts(make_stack, monkeypatch) -> None:
    """Connections refused over the grace: RunError (exit 3), not an errored attempt."""
    monkeypatch.setattr(reachability, "GONE_AFTER_S", 0.3)
    server = make_stack(**with_key(script=StackScript(default=TurnScript(latency=30))))
    target = target_for(server)
    await target.prepare()
    server.config.die_after_runs = 1
    loop = asyncio.get_running_loop()
    with pytest.raises(RunError) as caught:
        await target.execute(planned(["a"], 1)[0], loop.time() + 60, lambda r, d: None)
    await target.aclose()
    assert str(caught.value).startswith(f"stack at {server.url} unreachable mid-run: ")
    assert "connection refused" in str(caught.value)


async def test_an_answer_between_refusals_breaks_the_streak(make_stack) -> None:
    server = make_stack(**with_key())
    target = target_for(server)
    watch = target.reachability
    for _ in range(5):
        watch.no_answer("connection refused", 0.0)
    assert watch.gone(10.0, "x") is not None
    await target.prepare()  # an answer
    assert watch.gone(10.0, "x") is None
    for _ in range(5):
        watch.no_answer("connection lost", 0.0)  # the stack was reached: not a refusal
    assert watch.gone(10.0, "x") is None
    await target.aclose()


async def test_leave_running_sends_the_stack_no_cancel(make_stack) -> None:
    """The evaluation failed: the Run is left to end, so a resume replays its real Turn."""
    server = make_stack(**with_key(script=StackScript(default=TurnScript(latency=None))))
    target = target_for(server)
    await target.prepare()
    loop = asyncio.get_running_loop()
    tasks = [
        asyncio.ensure_future(target.execute(a, loop.time() + 30, lambda r, d: None))
        for a in planned(["kept", "cancelled"], 1)
    ]
    while server.stats().in_flight < 2:
        await asyncio.sleep(0.01)
    tasks[0].cancel(LEAVE_RUNNING)
    tasks[1].cancel()
    await asyncio.wait(tasks)
    await target.aclose()
    stats = server.stats()
    assert (stats.cancels, stats.in_flight) == (1, 1)
    assert server.run_for("kept", 1)["turn"]["status"] == "running"


@pytest.mark.parametrize("run_id", ["../../v1/agents/demo", "run?wait=0#x", "a%2F..%2Fb"])
async def test_a_run_id_with_path_characters_is_polled_as_one_segment(
    make_stack, monkeypatch, run_id: str
) -> None:
    """The stack names its Runs: an id with ``/``, ``?`` or ``%`` still polls that Run,
    never another route of the host (unquoted, ``../../v1/agents/demo`` polled the agent)."""
    monkeypatch.setattr(stack_module, "_MAX_WAIT", 0.05)  # the Turn outlives the first poll
    script = StackScript(default=TurnScript(output="a", latency=0.3, run_id=run_id))
    server = make_stack(**with_key(script=script))
    turn = await one_attempt(server, 5)
    assert (turn.status, turn.output, turn.run_id) == ("completed", "a", run_id)
    stats = server.stats()
    assert stats.count("GET /v1/agents") == 1  # prepare's, and no poll
    assert stats.count("GET /v1/runs/{id}", 200) >= 1


@pytest.mark.parametrize("run_id", ["..", "."])
async def test_a_run_id_no_url_can_hold_is_a_malformed_answer(
    make_stack, monkeypatch, run_id: str
) -> None:
    """``..`` cannot stay a segment (URLs drop dot segments): malformed, resent, never polled."""
    monkeypatch.setattr(stack_module, "_MAX_WAIT", 0.05)
    script = StackScript(default=TurnScript(latency=30, run_id=run_id))
    server = make_stack(**with_key(script=script))
    turn = await one_attempt(server, 1)
    assert (turn.status, turn.error) == ("timed_out", "deadline passed (malformed response)")
    assert server.stats().count("GET /v1/agents") == 1


async def test_a_corrupt_compressed_answer_is_asked_again_under_the_same_key(make_stack) -> None:
    """A completed Turn's answer gzipped with a broken stream is a malformed answer: the
    Run is asked again (a replay, no second Run), not stored errored with httpx's text."""
    server = make_stack(**with_key(corrupt_answers=1))
    turn = await one_attempt(server, 10)
    stats = server.stats()
    assert (turn.status, turn.output) == ("completed", "a")
    assert (stats.runs_created, stats.replays) == (1, 1)


async def test_an_answer_trickled_slowly_is_a_slow_stack_not_a_frozen_one(
    make_stack, monkeypatch
) -> None:
    """Every answer a byte per 0.05 s (~15 s each) against requests bounded at 0.5 s: no
    answer is ever whole, yet the stack is sending; the attempt times out at its deadline
    (it was "stopped answering", exit 3, when only whole answers counted as life)."""
    monkeypatch.setattr(stack_module, "_MAX_WAIT", 0.2)
    monkeypatch.setattr(stack_module, "ANSWER_MARGIN", 0.3)
    server = make_stack(**with_key(dribble=0.05))  # the runs routes only: prepare is answered
    turn = await one_attempt(server, 2.0)
    assert (turn.status, turn.error) == ("timed_out", "deadline passed (read timed out)")
    assert server.stats().dribbled >= 2
