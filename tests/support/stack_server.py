"""A stack that speaks runs-api.md, on aiohttp.web: scripted Turns, seeded faults, counters.

In tests: ``with StackServer(script=..., rate_429=0.15) as stack:`` (or the ``stack``
fixture), then ``stack.url``, ``stack.stats()``, ``stack.reset()``. By hand or for
benchmarks: ``python -m tests.support.stack_server --port 0 --latency 0.05 --rate-429 0.15``
prints its URL on the first line and a summary of its counters on exit; ``GET /_stats``
serves them (``?summary=1`` without the per-key maps; ``POST /_stats/reset`` zeroes them).

Faults are decided per request from a hash of (seed, idempotency key, how many times
that key was seen on that route), so a seed gives the same faults whatever the
interleaving of concurrent attempts. A key's evaluation id (``ev_…/``), fresh on every
run, is left out of the hash: the same cases meet the same faults on every run.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import hashlib
import json
import math
import os
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from passk_tui.core.attempt import ENDED_STATUSES
from tests.support.bomb_server import corrupt_gzip
from tests.support.processes import until_stopped

ECHO: Any = type("Echo", (), {"__repr__": lambda self: "ECHO"})()
"""TurnScript.output default: the Turn answers with the Run's input."""

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

#: What a ``malformed`` stack answers: Run-shaped, but its Turn status is none runs-api.md knows.
MALFORMED_RUN = b'{"id": "run_malformed", "turn": {"status": "pondering"}}'


@dataclass(frozen=True, slots=True)
class TurnScript:
    """How one Turn ends: its status, output, error and latency (None or inf: hangs until cancelled)."""

    status: str = "completed"
    output: Any = ECHO
    error: str | dict[str, str] | None = None
    latency: float | None = 0.05
    usage: dict[str, int] | None = None
    run_id: str | None = None
    """The Run's id as the stack reports it (default: a fresh one), e.g. a lone surrogate."""
    echo_authorization: bool = False
    """A misbehaving stack or proxy: the Turn fails with the request's Authorization header
    quoted in its error."""


ScriptFn = Callable[[str, int], "TurnScript | None"]


@dataclass
class StackScript:
    """Which TurnScript a Run gets, from its metadata {case, attempt}.

    ``turns`` is a callable (case, attempt) -> TurnScript | None, or a mapping keyed by
    (case, attempt) or by case name; anything unmatched gets ``default``.
    """

    turns: ScriptFn | Mapping[Any, TurnScript] | None = None
    default: TurnScript = field(default_factory=TurnScript)

    def turn_for(self, case: Any, attempt: Any) -> TurnScript:
        """The TurnScript for one attempt."""
        turns = self.turns
        found = None
        if callable(turns):
            found = turns(case, attempt)
        elif turns is not None:
            try:
                found = turns.get((case, attempt)) or turns.get(case)
            except TypeError:  # unhashable metadata
                found = None
        return found or self.default


@dataclass(frozen=True, slots=True)
class Agent:
    """An agent on the stack: its id, name and versions."""

    id: str
    name: str
    versions: tuple[int, ...] = (1, 2, 3)


@dataclass
class StackConfig:
    """Everything a StackServer does; live, so a test may change it between requests.

    ``keys`` maps a bearer key to the agent names it may use (None: all; empty: none,
    so 403); any other key gets 401. ``keys=None`` opens the stack to anyone.
    Rates are fractions of requests: 429 (with ``Retry-After: retry_after``), 503 (half
    with Retry-After; half of them after the Run was created or replayed), lost (the
    Run is created or replayed, then the connection is aborted with no response, half
    before and half after the wait). ``rate_slow``/``rate_hang`` apply to new Turns.
    """

    keys: dict[str, frozenset[str] | None] | None = field(
        default_factory=lambda: {"secret-key": None, "forbidden": frozenset()}
    )
    agents: tuple[Agent, ...] = (Agent("agt_01J9ZQ4X7RM0BWJ8S5C0V2K3YD", "demo"),)
    script: StackScript = field(default_factory=StackScript)
    scripts_by_version: dict[int, StackScript] = field(default_factory=dict)
    """A version's own script (a baseline beside a candidate that differs); others get ``script``."""
    rate_429: float = 0.0
    rate_503: float = 0.0
    rate_lost: float = 0.0
    rate_slow: float = 0.0
    rate_hang: float = 0.0
    slow_latency: float = 1.0
    retry_after: str = "0.05"
    seed: int = 0
    max_in_flight: int | None = None
    """Runs in flight per bearer key past which POST /v1/runs answers 429."""
    malformed: bool = False
    """Every answer on the runs routes is ``200`` with ``MALFORMED_RUN``, not a Run."""
    corrupt_answers: int = 0
    """The first this many 2xx answers on the runs routes go out gzipped with a broken
    deflate stream (``Content-Encoding: gzip``), as a faulty proxy or compressor sends them."""
    dribble: float | None = None
    """Slow-loris: every answer on the runs routes is sent a byte at a time, this many s apart."""
    die_after_runs: int | None = None
    """Once this many Runs were created, the stack stops listening and drops every connection."""
    refuse_first: int = 0
    """The first this many POSTs of every idempotency key answer 429 (with Retry-After), before
    any rate: each attempt meets exactly that many retries, whatever the seed."""
    on_run_created: Callable[[int], None] | None = None
    """Called on the stack's loop as each new Run is created, with how many were created so
    far, before any answer goes back: e.g. to kill the client at the k-th Run it started."""


def _without_evaluation(subject: str) -> str:
    """An attempt key less its leading ``ev_…/`` evaluation id, which each run draws afresh."""
    head, slash, rest = subject.partition("/")
    return rest if slash and head.startswith("ev_") else subject


@dataclass(frozen=True)
class StackStats:
    """A snapshot of the counters. ``requests`` is keyed "<route> <status>", e.g. "POST /v1/runs 201"."""

    runs_created: int
    runs_by_key: dict[str, int]
    replays: int
    requests: dict[str, int]
    cancels: int
    cancelled: int
    in_flight: int
    in_flight_peak: int
    lost: int
    turns_ended: dict[str, int]
    keys_by_attempt: dict[str, list[str]]
    dribbled: int = 0
    """Bytes a slow-loris (``dribble``) stack got out before the client hung up or read them all."""

    def count(self, route: str, status: int | str | None = None) -> int:
        """Requests on ``route`` ("POST /v1/runs", ...), all or with one status (or "lost")."""
        if status is not None:
            return self.requests.get(f"{route} {status}", 0)
        prefix = route + " "
        return sum(n for name, n in self.requests.items() if name.startswith(prefix))

    @property
    def max_runs_per_key(self) -> int:
        """The most Runs any one idempotency key started: 1 when nothing ran twice."""
        return max(self.runs_by_key.values(), default=0)

    def to_json(self, summary: bool = False) -> dict[str, Any]:
        """The counters as a JSON-ready dict; ``summary`` drops the per-key maps."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if summary:
            del out["runs_by_key"], out["keys_by_attempt"]
        out["max_runs_per_key"] = self.max_runs_per_key
        return out


class Run:
    """A Run and its Turn, as the stack holds it."""

    __slots__ = (
        "agent",
        "api_key",
        "cached",
        "created_at",
        "ended_at",
        "error",
        "id",
        "input",
        "key",
        "metadata",
        "output",
        "status",
        "timer",
        "turn_id",
        "usage",
        "version",
        "waiters",
    )

    def to_json(self) -> bytes:
        """The Run as runs-api.md shapes it (cached once the Turn has ended)."""
        if self.cached is not None:
            return self.cached
        turn: dict[str, Any] = {
            "id": self.turn_id,
            "status": self.status,
            "output": self.output,
            "error": self.error,
            "created_at": self.created_at,
            "ended_at": self.ended_at,
        }
        if self.usage is not None:
            turn["usage"] = self.usage
        body = json.dumps(
            {"id": self.id, "agent": self.agent.id, "version": self.version, "turn": turn}
        ).encode()
        if self.status in ENDED_STATUSES:
            self.cached = body
        return body


def _echo(given: Any) -> Any:
    """What an echoing agent answers: its input; for a conversation (``{"messages": [...]}``,
    runs-api.md) the last message's text, as an agent holding a conversation answers in text."""
    messages = given.get("messages") if isinstance(given, dict) else None
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        return f"you said: {messages[-1].get('content')}"
    return given


def _timestamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None):
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    return web.Response(status=status, body=body, content_type="application/json", headers=headers)


def _ok(status: int, run: Run, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status, body=run.to_json(), content_type="application/json", headers=headers
    )


def _parse_wait(request: web.Request) -> float | None:
    raw = request.query.get("wait")
    if raw is None:
        return 0.0
    try:
        wait = float(raw)
    except ValueError:
        return None
    return wait if 0.0 <= wait <= 30.0 else None


def _valid_key(key: str) -> bool:
    return 1 <= len(key) <= 255 and all(0x21 <= ord(ch) <= 0x7E for ch in key)


class StackState:
    """The stack's Runs, idempotency keys and counters, living on one event loop."""

    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.runs: dict[str, Run] = {}
        self.by_key: dict[str, tuple[Any, Run]] = {}
        self.seen: Counter[str] = Counter()
        self._serial = 0
        self._in_flight = 0
        #: Called (on the state's loop) when ``die_after_runs`` is reached: stops the server.
        self.on_death: Callable[[], None] | None = None
        self.reset()

    def reset(self) -> None:
        """Zero the counters (Runs and keys stay, so replays still replay)."""
        self.runs_created = 0
        self.runs_by_key: Counter[str] = Counter()
        self.replays = 0
        self.requests: Counter[str] = Counter()
        self.cancels = 0
        self.cancelled = 0
        self.in_flight_peak = self._in_flight
        self.lost = 0
        self.turns_ended: Counter[str] = Counter()
        self.keys_by_attempt: dict[str, set[str]] = {}
        self.dribbled = 0
        self.corrupted = 0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def stats(self) -> StackStats:
        """A snapshot of the counters (call on the state's loop)."""
        return StackStats(
            runs_created=self.runs_created,
            runs_by_key=dict(self.runs_by_key),
            replays=self.replays,
            requests=dict(self.requests),
            cancels=self.cancels,
            cancelled=self.cancelled,
            in_flight=self._in_flight,
            in_flight_peak=self.in_flight_peak,
            lost=self.lost,
            turns_ended=dict(self.turns_ended),
            keys_by_attempt={k: sorted(v) for k, v in self.keys_by_attempt.items()},
            dribbled=self.dribbled,
        )

    # -- faults ------------------------------------------------------------------

    def _rolls(self, route: str, subject: str) -> tuple[float, float, float]:
        """Three uniform numbers for the n-th request on (route, subject), fixed by the seed."""
        name = f"{route}|{_without_evaluation(subject)}"
        self.seen[name] += 1
        raw = f"{self.config.seed}|{name}|{self.seen[name]}".encode()
        digest = hashlib.blake2b(raw, digest_size=12).digest()
        scale = float(1 << 32)
        return (
            int.from_bytes(digest[0:4]) / scale,
            int.from_bytes(digest[4:8]) / scale,
            int.from_bytes(digest[8:12]) / scale,
        )

    def _fault(self, route: str, subject: str) -> tuple[str | None, float, float]:
        """None, "429", "503" or "lost" for this request, and two rolls for its variant."""
        config = self.config
        if not (config.rate_429 or config.rate_503 or config.rate_lost):
            return None, 0.0, 0.0
        u, v, w = self._rolls(route, subject)
        if u < config.rate_429:
            return "429", v, w
        u -= config.rate_429
        if u < config.rate_503:
            return "503", v, w
        u -= config.rate_503
        if u < config.rate_lost:
            return "lost", v, w
        return None, v, w

    def _refused_first(self, key: str) -> bool:
        """Whether this POST of ``key`` is one of its first ``refuse_first`` (counted once each)."""
        if not self.config.refuse_first:
            return False
        name = f"refuse_first|{key}"
        self.seen[name] += 1
        return self.seen[name] <= self.config.refuse_first

    def _fault_response(self, kind: str, v: float) -> web.Response:
        if kind == "429":
            return _error(
                429, "rate_limited", "too many requests", {"Retry-After": self.config.retry_after}
            )
        headers = {"Retry-After": self.config.retry_after} if v < 0.5 else None
        return _error(503, "unavailable", "the stack could not answer", headers)

    def _lose(self, request: web.Request, route: str) -> web.Response:
        self.lost += 1
        self.requests[f"{route} lost"] += 1
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=204)  # never sent: the transport is gone

    # -- auth and lookup ------------------------------------------------------------

    def _auth(self, request: web.Request) -> tuple[str, frozenset[str] | None] | None:
        """(key, agents it may use) or None when the key is missing or unknown."""
        keys = self.config.keys
        header = request.headers.get("Authorization", "")
        key = header[7:] if header.startswith("Bearer ") else ""
        if keys is None:
            return key, None
        if key not in keys:
            return None
        return key, keys[key]

    def _agent(self, ref: str) -> Agent | None:
        for agent in self.config.agents:
            if ref in (agent.id, agent.name):
                return agent
        return None

    # -- Turns ------------------------------------------------------------------------

    def _new_id(self, prefix: str) -> str:
        self._serial += 1
        value = (
            (int(time.time() * 1000) << 80) | (self._serial << 40) | int.from_bytes(os.urandom(5))
        )
        chars = []
        for _ in range(26):
            chars.append(_CROCKFORD[value & 31])
            value >>= 5
        return prefix + "".join(reversed(chars))

    def _create(self, agent: Agent, body: dict[str, Any], key: str, api_key: str) -> Run:
        loop = asyncio.get_running_loop()
        config = self.config
        metadata = body.get("metadata") or {}
        case, attempt = metadata.get("case"), metadata.get("attempt")
        version_script = config.scripts_by_version.get(body["version"], config.script)
        script = version_script.turn_for(case, attempt)
        latency = script.latency
        if config.rate_slow or config.rate_hang:
            u, _, _ = self._rolls("turn", key)
            if u < config.rate_hang:
                latency = None
            elif u < config.rate_hang + config.rate_slow:
                latency = config.slow_latency
        run = Run()
        run.id = script.run_id or self._new_id("run_")
        run.turn_id = self._new_id("turn_")
        run.agent, run.version, run.input = agent, body["version"], body["input"]
        run.metadata, run.key, run.api_key = metadata, key, api_key
        run.status, run.output, run.error, run.usage = "running", None, None, None
        run.created_at, run.ended_at, run.cached, run.waiters = _timestamp(), None, None, []
        run.timer = None
        if latency is not None and math.isfinite(latency):
            run.timer = loop.call_later(max(0.0, latency), self._finish, run, script)
        self.runs[run.id] = run
        self.runs_created += 1
        self.runs_by_key[key] += 1
        if self.runs_created == config.die_after_runs and self.on_death is not None:
            self.on_death()
        if config.on_run_created is not None:
            config.on_run_created(self.runs_created)
        self._in_flight += 1
        self.in_flight_peak = max(self.in_flight_peak, self._in_flight)
        return run

    def _finish(self, run: Run, script: TurnScript) -> None:
        output = _echo(run.input) if script.output is ECHO else script.output
        error = script.error
        if script.echo_authorization:
            error = f"upstream refused the request (Authorization: Bearer {run.api_key})"
        if isinstance(error, str):
            error = {"code": "agent_error", "message": error}
        elif error is None and script.status == "failed":
            error = {"code": "agent_error", "message": "the agent failed"}
        run.output, run.error = output, error
        text = output if isinstance(output, str) else json.dumps(output)
        run.usage = script.usage or {
            "input_tokens": len(json.dumps(run.input)) // 4 + 1,
            "output_tokens": len(text) // 4 + 1,
        }
        self._end(run, script.status)

    def _end(self, run: Run, status: str) -> None:
        if run.status in ENDED_STATUSES:
            return
        if run.timer is not None:
            run.timer.cancel()
            run.timer = None
        run.status, run.ended_at = status, _timestamp()
        self._in_flight -= 1
        self.turns_ended[status] += 1
        for waiter in run.waiters:
            if not waiter.done():
                waiter.set_result(None)
        run.waiters.clear()

    async def _hold(self, run: Run, wait: float) -> None:
        """Return when the Turn has ended or ``wait`` seconds have passed (long poll)."""
        if wait <= 0 or run.status in ENDED_STATUSES:
            return
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        run.waiters.append(waiter)
        timer = loop.call_later(wait, lambda: waiter.done() or waiter.set_result(None))
        try:
            await waiter
        finally:
            timer.cancel()
            if waiter in run.waiters:
                run.waiters.remove(waiter)

    def shutdown(self) -> None:
        """Stop every timer and release every long poll (before the server stops)."""
        for run in self.runs.values():
            if run.timer is not None:
                run.timer.cancel()
            for waiter in run.waiters:
                if not waiter.done():
                    waiter.set_result(None)

    # -- handlers ------------------------------------------------------------------------

    async def get_agent(self, request: web.Request) -> web.Response:
        return await self._counted("GET /v1/agents", self._get_agent, request)

    async def _get_agent(self, request: web.Request, route: str) -> web.Response:
        auth = self._auth(request)
        if auth is None:
            return _error(401, "unauthorized", "missing or bad key")
        ref = request.match_info["agent"]
        kind, v, _ = self._fault(route, ref)
        if kind in ("429", "503"):
            return self._fault_response(kind, v)
        agent = self._agent(ref)
        if agent is None:
            return _error(404, "agent_not_found", f"no agent {ref!r}")
        if auth[1] is not None and agent.name not in auth[1]:
            return _error(403, "forbidden", "this key has no access to the agent")
        body = {
            "id": agent.id,
            "name": agent.name,
            "versions": list(agent.versions),
            "latest": max(agent.versions) if agent.versions else None,
        }
        return web.Response(body=json.dumps(body).encode(), content_type="application/json")

    async def _counted(
        self,
        route: str,
        handle: Callable[[web.Request, str], Awaitable[web.Response]],
        request: web.Request,
    ) -> web.Response:
        """Count a route's answer by status, or as ``gone`` when the client left mid-wait."""
        try:
            response = await handle(request, route)
        except asyncio.CancelledError:  # the client went away mid-wait
            self.requests[f"{route} gone"] += 1
            raise
        runs_route = route != "GET /v1/agents"
        if self.config.malformed and runs_route and response.status != 204:
            response = web.Response(status=200, body=MALFORMED_RUN)
        if response.status != 204:
            self.requests[f"{route} {response.status}"] += 1
        if (
            self.corrupted < self.config.corrupt_answers
            and runs_route
            and response.status in (200, 201)
        ):
            self.corrupted += 1
            response.body = corrupt_gzip(response.body if isinstance(response.body, bytes) else b"")
            response.headers["Content-Encoding"] = "gzip"
        if self.config.dribble is not None and runs_route and response.status != 204:
            return await self._dribble(request, response, self.config.dribble)
        return response

    async def _dribble(
        self, request: web.Request, response: web.Response, gap: float
    ) -> web.StreamResponse:
        """Send ``response`` a byte at a time, ``gap`` seconds apart (a slow-loris stack)."""
        body = response.body if isinstance(response.body, bytes) else b""
        stream = web.StreamResponse(status=response.status, headers=response.headers)
        stream.content_length = len(body)
        await stream.prepare(request)
        for i in range(len(body)):
            await stream.write(body[i : i + 1])
            self.dribbled += 1
            await asyncio.sleep(gap)
        await stream.write_eof()
        return stream

    async def post_run(self, request: web.Request) -> web.Response:
        return await self._counted("POST /v1/runs", self._post_run, request)

    async def _post_run(self, request: web.Request, route: str) -> web.Response:
        auth = self._auth(request)
        if auth is None:
            return _error(401, "unauthorized", "missing or bad key")
        key = request.headers.get("Idempotency-Key")
        if key is None or not _valid_key(key):
            return _error(422, "invalid_request", "Idempotency-Key: 1 to 255 visible ASCII")
        if self._refused_first(key):
            return self._fault_response("429", 0.0)
        kind, v, w = self._fault(route, key)
        if kind == "429" or (kind == "503" and w < 0.5):
            return self._fault_response(kind, v)
        wait = _parse_wait(request)
        try:
            body = json.loads(await request.read())
        except ValueError:
            body = None
        problem = _body_problem(body)
        if problem or wait is None:
            return _error(422, "invalid_request", problem or "wait: a number from 0 to 30")
        metadata = body.get("metadata") or {}
        slot = f"{metadata.get('case')}#{metadata.get('attempt')}"
        self.keys_by_attempt.setdefault(slot, set()).add(key)
        agent = self._agent(body["agent"])
        if agent is None:
            return _error(404, "agent_not_found", f"no agent {body['agent']!r}")
        if auth[1] is not None and agent.name not in auth[1]:
            return _error(403, "forbidden", "this key has no access to the agent")
        if body["version"] not in agent.versions:
            return _error(404, "version_not_found", f"agent has no version {body['version']}")
        known = self.by_key.get(key)
        if known is not None:
            if known[0] != body:
                return _error(409, "idempotency_key_reused", "key used with a different body")
            run, status, headers = known[1], 200, {"Idempotent-Replayed": "true"}
            self.replays += 1
        else:
            cap = self.config.max_in_flight
            if cap is not None:
                mine = sum(
                    1
                    for r in self.runs.values()
                    if r.api_key == auth[0] and r.status not in ENDED_STATUSES
                )
                if mine >= cap:
                    return self._fault_response("429", 0.0)
            run, status, headers = self._create(agent, body, key, auth[0]), 201, None
            self.by_key[key] = (body, run)
        if kind == "503":
            return self._fault_response("503", v)
        if kind == "lost" and w < 0.5:
            return self._lose(request, route)
        await self._hold(run, wait)
        if kind == "lost":
            return self._lose(request, route)
        return _ok(status, run, headers)

    async def get_run(self, request: web.Request) -> web.Response:
        return await self._counted("GET /v1/runs/{id}", self._get_run, request)

    def _visible_run(self, request: web.Request) -> Run | web.Response:
        """The Run named in the path, or the 401, 404 or 403 that this key gets instead."""
        auth = self._auth(request)
        if auth is None:
            return _error(401, "unauthorized", "missing or bad key")
        run = self.runs.get(request.match_info["run_id"])
        if run is None:
            return _error(404, "run_not_found", "no such run")
        if auth[1] is not None and run.agent.name not in auth[1]:
            return _error(403, "forbidden", "this key has no access to the agent")
        return run

    async def _get_run(self, request: web.Request, route: str) -> web.Response:
        run = self._visible_run(request)
        if not isinstance(run, Run):
            return run
        wait = _parse_wait(request)
        if wait is None:
            return _error(422, "invalid_request", "wait: a number from 0 to 30")
        kind, v, w = self._fault(route, run.key)
        if kind in ("429", "503"):
            return self._fault_response(kind, v)
        if kind == "lost" and w < 0.5:
            return self._lose(request, route)
        await self._hold(run, wait)
        if kind == "lost":
            return self._lose(request, route)
        return _ok(200, run)

    async def cancel_run(self, request: web.Request) -> web.Response:
        return await self._counted("POST /v1/runs/{id}/cancel", self._cancel_run, request)

    async def _cancel_run(self, request: web.Request, route: str) -> web.Response:
        run = self._visible_run(request)
        if not isinstance(run, Run):
            return run
        self.cancels += 1
        if run.status not in ENDED_STATUSES:
            run.output, run.error = None, {"code": "cancelled", "message": "cancelled by a client"}
            self._end(run, "cancelled")
            self.cancelled += 1
        return _ok(200, run)

    async def get_stats(self, request: web.Request) -> web.Response:
        summary = request.query.get("summary", "0") not in ("0", "", "false")
        return web.json_response(self.stats().to_json(summary=summary))

    async def post_reset(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response({"reset": True})


def _body_problem(body: Any) -> str | None:
    """Why a POST /v1/runs body is malformed, or None."""
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    if not isinstance(body.get("agent"), str):
        return "agent: a string is required"
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        return "version: an integer is required"
    if "input" not in body:
        return "input is required"
    if not isinstance(body.get("metadata", {}), dict | None):
        return "metadata must be an object"
    return None


def build_app(state: StackState) -> web.Application:
    """The aiohttp application serving ``state``."""
    app = web.Application()
    app.router.add_get("/v1/agents/{agent}", state.get_agent)
    app.router.add_post("/v1/runs", state.post_run)
    app.router.add_get("/v1/runs/{run_id}", state.get_run)
    app.router.add_post("/v1/runs/{run_id}/cancel", state.cancel_run)
    app.router.add_get("/_stats", state.get_stats)
    app.router.add_post("/_stats/reset", state.post_reset)
    return app


async def _start(state: StackState, host: str, port: int) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(
        build_app(state), access_log=None, handler_cancellation=True, shutdown_timeout=0.5
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    bound = runner.addresses[0]
    return runner, f"http://{host}:{bound[1]}"


class StackServer:
    """The stack in a background thread with its own event loop, for tests.

    ``StackServer(config)`` or ``StackServer(script=..., rate_429=...)`` (StackConfig
    fields); ``with StackServer() as stack:`` starts and stops it.
    """

    def __init__(self, config: StackConfig | None = None, **overrides: Any) -> None:
        self.config = config or StackConfig(**overrides)
        if config is not None:
            for name, value in overrides.items():
                setattr(self.config, name, value)
        self.url = ""
        self._state = StackState(self.config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    def start(self, host: str = "127.0.0.1", port: int = 0) -> StackServer:
        """Start serving; returns self once ``url`` is set."""
        ready: concurrent.futures.Future[str] = concurrent.futures.Future()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._runner, url = loop.run_until_complete(_start(self._state, host, port))
            except BaseException as exc:
                ready.set_exception(exc)
                loop.close()
                return
            ready.set_result(url)
            self._state.on_death = lambda: loop.create_task(self._die())
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=serve, name="stack-server", daemon=True)
        self._thread.start()
        self.url = ready.result(timeout=10)
        return self

    async def _die(self) -> None:
        """Stop listening and drop every connection, as a stack that crashed (the loop lives on)."""
        self._state.shutdown()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def stop(self) -> None:
        """Release every long poll, stop serving and join the thread."""
        if self._loop is None or self._thread is None:
            return

        async def shutdown() -> None:
            self._state.shutdown()
            if self._runner is not None:
                await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop = self._thread = None

    def __enter__(self) -> StackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def call(self, fn: Callable[[StackState], Any]) -> Any:
        """Run ``fn(state)`` on the server's loop and return its result."""
        if self._loop is None:
            return fn(self._state)
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(fn(self._state))
            except BaseException as exc:
                done.set_exception(exc)

        self._loop.call_soon_threadsafe(run)
        return done.result(timeout=10)

    def stats(self) -> StackStats:
        """A snapshot of the counters."""
        return self.call(StackState.stats)

    def reset(self) -> None:
        """Zero the counters."""
        self.call(StackState.reset)

    def runs(self) -> list[dict[str, Any]]:
        """Every Run as JSON, plus its ``idempotency_key`` and ``metadata``."""

        def collect(state: StackState) -> list[dict[str, Any]]:
            out = []
            for run in state.runs.values():
                item = json.loads(run.to_json())
                item["idempotency_key"], item["metadata"] = run.key, run.metadata
                out.append(item)
            return out

        return self.call(collect)

    def run_for(self, case: str, attempt: int) -> dict[str, Any] | None:
        """The Run started for (case, attempt), or None."""
        for run in self.runs():
            if run["metadata"].get("case") == case and run["metadata"].get("attempt") == attempt:
                return run
        return None


def main(argv: list[str] | None = None) -> None:
    """Serve a stack until SIGINT/SIGTERM; URL on the first stdout line, counters on exit."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.stack_server", description=__doc__
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.05, help="Turn latency, seconds")
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--rate-503", type=float, default=0.0)
    parser.add_argument("--rate-lost", type=float, default=0.0)
    parser.add_argument("--rate-slow", type=float, default=0.0)
    parser.add_argument("--rate-hang", type=float, default=0.0)
    parser.add_argument("--slow-latency", type=float, default=1.0)
    parser.add_argument("--retry-after", default="0.05")
    parser.add_argument("--max-in-flight", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dribble", type=float, default=None, help="slow-loris: s per byte")
    parser.add_argument("--malformed", action="store_true", help="200s that are not Runs")
    parser.add_argument("--key", default=None, help="the accepted key (default: any)")
    parser.add_argument("--agent", default="demo")
    parser.add_argument("--versions", default="1,2,3")
    args = parser.parse_args(argv)
    config = StackConfig(
        keys=None if args.key is None else {args.key: None, "forbidden": frozenset()},
        agents=(
            Agent(
                "agt_01J9ZQ4X7RM0BWJ8S5C0V2K3YD",
                args.agent,
                tuple(int(v) for v in args.versions.split(",")),
            ),
        ),
        script=StackScript(default=TurnScript(latency=args.latency)),
        rate_429=args.rate_429,
        rate_503=args.rate_503,
        rate_lost=args.rate_lost,
        rate_slow=args.rate_slow,
        rate_hang=args.rate_hang,
        slow_latency=args.slow_latency,
        retry_after=args.retry_after,
        max_in_flight=args.max_in_flight,
        seed=args.seed,
        dribble=args.dribble,
        malformed=args.malformed,
    )
    state = StackState(config)

    async def serve() -> None:
        runner, url = await _start(state, args.host, args.port)
        print(url, flush=True)
        try:
            await until_stopped()
        finally:
            state.shutdown()
            await runner.cleanup()
            print(json.dumps(state.stats().to_json(summary=True)), flush=True)

    asyncio.run(serve())


if __name__ == "__main__":
    main()
