"""Sanity of the test stack itself: it must speak runs-api.md before it can judge a client."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time

import httpx
import pytest

from tests.support.stack_server import StackScript, StackServer, TurnScript

AUTH = {"Authorization": "Bearer secret-key", "Content-Type": "application/json"}


def body(case: str = "c", attempt: int = 1, **extra) -> bytes:
    doc = {
        "agent": "demo",
        "version": 1,
        "input": "hi",
        "metadata": {"case": case, "attempt": attempt},
    }
    doc.update(extra)
    return json.dumps(doc).encode()


async def post(client: httpx.AsyncClient, url: str, key: str, data: bytes, wait: float = 0):
    headers = {**AUTH, "Idempotency-Key": key}
    return await client.post(f"{url}/v1/runs?wait={wait}", content=data, headers=headers)


async def test_same_key_same_body_replays_the_run(stack: StackServer) -> None:
    async with httpx.AsyncClient() as client:
        first = await post(client, stack.url, "k1", body(), wait=1)
        again = await post(client, stack.url, "k1", body(), wait=1)
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    run = first.json()
    assert run["id"].startswith("run_") and run["turn"]["id"].startswith("turn_")
    assert run["turn"]["status"] == "completed" and run["turn"]["output"] == "hi"
    assert run["turn"]["created_at"].endswith("Z") and run["turn"]["ended_at"].endswith("Z")
    assert set(run["turn"]["usage"]) == {"input_tokens", "output_tokens"}
    assert again.json()["id"] == run["id"]
    stats = stack.stats()
    assert (stats.runs_created, stats.replays, stats.runs_by_key) == (1, 1, {"k1": 1})


async def test_same_key_other_body_is_409(stack: StackServer) -> None:
    async with httpx.AsyncClient() as client:
        await post(client, stack.url, "k1", body())
        clash = await post(client, stack.url, "k1", body(attempt=2))
    assert clash.status_code == 409
    assert clash.json() == {
        "error": {"code": "idempotency_key_reused", "message": "key used with a different body"}
    }
    assert stack.stats().runs_created == 1


async def test_errors_401_403_404_422(stack: StackServer) -> None:
    async with httpx.AsyncClient() as client:
        url = stack.url
        assert (await client.get(f"{url}/v1/agents/demo")).status_code == 401
        bad = {"Authorization": "Bearer nope"}
        assert (await client.get(f"{url}/v1/agents/demo", headers=bad)).status_code == 401
        forbidden = {"Authorization": "Bearer forbidden"}
        assert (await client.get(f"{url}/v1/agents/demo", headers=forbidden)).status_code == 403
        agent = await client.get(f"{url}/v1/agents/demo", headers=AUTH)
        assert agent.json() == {
            "id": "agt_01J9ZQ4X7RM0BWJ8S5C0V2K3YD",
            "name": "demo",
            "versions": [1, 2, 3],
            "latest": 3,
        }
        by_id = await client.get(f"{url}/v1/agents/agt_01J9ZQ4X7RM0BWJ8S5C0V2K3YD", headers=AUTH)
        assert by_id.json()["name"] == "demo"
        missing = await client.get(f"{url}/v1/agents/nope", headers=AUTH)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "agent_not_found"
        version = await post(client, url, "k2", body(version=9))
        assert version.status_code == 404
        assert version.json()["error"]["code"] == "version_not_found"
        assert (await post(client, url, "k3", b"{not json")).status_code == 422
        assert (await post(client, url, "k4", body(), wait=31)).status_code == 422
        no_key = await client.post(f"{url}/v1/runs", content=body(), headers=AUTH)
        assert no_key.status_code == 422
    assert stack.stats().runs_created == 0


async def test_long_poll_holds_until_the_turn_ends(make_stack) -> None:
    stack = make_stack(script=StackScript(default=TurnScript(latency=0.3)))
    async with httpx.AsyncClient() as client:
        started = await post(client, stack.url, "k1", body())
        assert started.status_code == 201 and started.json()["turn"]["status"] == "running"
        run_id = started.json()["id"]
        t0 = time.monotonic()
        short = await client.get(f"{stack.url}/v1/runs/{run_id}?wait=0.05", headers=AUTH)
        assert short.json()["turn"]["status"] == "running"
        assert 0.04 < time.monotonic() - t0 < 0.25
        done = await client.get(f"{stack.url}/v1/runs/{run_id}?wait=5", headers=AUTH)
        assert done.json()["turn"]["status"] == "completed"
        assert time.monotonic() - t0 < 0.6
        gone = await client.get(f"{stack.url}/v1/runs/run_nope", headers=AUTH)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "run_not_found"


async def test_cancel_ends_a_hanging_turn_and_keeps_an_ended_one(make_stack) -> None:
    script = {"hang": TurnScript(latency=None), "quick": TurnScript(latency=0)}
    stack = make_stack(script=StackScript(script))
    async with httpx.AsyncClient() as client:
        hang = (await post(client, stack.url, "k1", body("hang"))).json()["id"]
        quick = (await post(client, stack.url, "k2", body("quick"), wait=1)).json()["id"]
        assert stack.stats().in_flight == 1
        poll = asyncio.ensure_future(
            client.get(f"{stack.url}/v1/runs/{hang}?wait=10", headers=AUTH)
        )
        await asyncio.sleep(0.05)
        cancelled = await client.post(f"{stack.url}/v1/runs/{hang}/cancel", headers=AUTH)
        assert cancelled.json()["turn"]["status"] == "cancelled"
        assert (await asyncio.wait_for(poll, 1)).json()["turn"]["status"] == "cancelled"
        kept = await client.post(f"{stack.url}/v1/runs/{quick}/cancel", headers=AUTH)
        assert kept.status_code == 200 and kept.json()["turn"]["status"] == "completed"
    stats = stack.stats()
    assert (stats.cancels, stats.cancelled, stats.in_flight, stats.in_flight_peak) == (2, 1, 0, 2)
    assert stats.count("POST /v1/runs/{id}/cancel", 200) == 2
    stack.reset()
    assert stack.stats().cancels == 0 and stack.stats().requests == {}


async def test_scripted_turns_and_counters(make_stack) -> None:
    def script(case: str, attempt: int) -> TurnScript | None:
        if attempt == 2:
            return TurnScript(status="failed", error="tool crashed", latency=0)
        return None

    stack = make_stack(script=StackScript(script, default=TurnScript(output="42", latency=0)))
    async with httpx.AsyncClient() as client:
        one = (await post(client, stack.url, "k1", body("c", 1), wait=1)).json()["turn"]
        two = (await post(client, stack.url, "k2", body("c", 2), wait=1)).json()["turn"]
    assert (one["status"], one["output"], one["error"]) == ("completed", "42", None)
    assert two["status"] == "failed"
    assert two["error"] == {"code": "agent_error", "message": "tool crashed"}
    stats = stack.stats()
    assert stats.count("POST /v1/runs") == 2 and stats.count("POST /v1/runs", 201) == 2
    assert stats.turns_ended == {"completed": 1, "failed": 1}
    assert stats.keys_by_attempt == {"c#1": ["k1"], "c#2": ["k2"]}


async def test_faults_follow_the_seed_and_lost_responses_still_create_runs() -> None:
    async def statuses(seed: int) -> tuple[list[int | str], int]:
        with StackServer(rate_429=0.2, rate_503=0.2, rate_lost=0.2, seed=seed) as stack:
            seen: list[int | str] = []
            async with httpx.AsyncClient() as client:
                for n in range(30):
                    try:
                        seen.append(
                            (await post(client, stack.url, f"k{n}", body("c", n))).status_code
                        )
                    except httpx.TransportError:
                        seen.append("lost")
            return seen, stack.stats().runs_created

    first, created = await statuses(7)
    assert first == (await statuses(7))[0]
    assert first != (await statuses(8))[0]
    assert {429, 503, "lost", 201} <= set(first)
    # A 429 never starts a Run; a lost response always did; a 503 may have.
    assert first.count(201) + first.count("lost") <= created
    assert created <= len(first) - first.count(429)


async def test_in_flight_cap_answers_429(make_stack) -> None:
    stack = make_stack(script=StackScript(default=TurnScript(latency=None)), max_in_flight=2)
    async with httpx.AsyncClient() as client:
        codes = [
            (await post(client, stack.url, f"k{n}", body("c", n))).status_code for n in range(3)
        ]
        third = await post(client, stack.url, "k2", body("c", 2))
    assert codes == [201, 201, 429] and third.headers["Retry-After"] == "0.05"
    assert stack.stats().in_flight_peak == 2


def test_standalone_prints_url_serves_stats_and_counters_on_sigint() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.stack_server",
            "--port",
            "0",
            "--key",
            "k",
            "--seed",
            "1",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        headers = {"Authorization": "Bearer k", "Idempotency-Key": "x"}
        created = httpx.post(f"{url}/v1/runs?wait=1", content=body(), headers=headers)
        assert created.status_code == 201
        assert httpx.get(f"{url}/_stats").json()["runs_created"] == 1
    finally:
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=10)
    assert json.loads(out.strip().splitlines()[-1])["runs_created"] == 1


@pytest.mark.parametrize("route", ["/v1/agents/demo"])
async def test_stats_endpoint(stack: StackServer, route: str) -> None:
    async with httpx.AsyncClient() as client:
        await client.get(f"{stack.url}{route}", headers=AUTH)
        stats = (await client.get(f"{stack.url}/_stats")).json()
        assert stats["requests"] == {"GET /v1/agents 200": 1}
        await client.post(f"{stack.url}/_stats/reset")
        assert (await client.get(f"{stack.url}/_stats")).json()["requests"] == {}
