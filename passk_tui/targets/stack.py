"""The stack target: one Run per attempt over runs-api.md, resent under the same key until it ends.

Every request of an attempt carries the attempt's idempotency key, so resending
after a 429, a 5xx, a timeout or a dropped connection replays the Run the stack
already started instead of starting a second one. Transport failures are
classified by ``targets.retry``, which writes every reason itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.agent_definition import stack_definition
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.target import LEAVE_RUNNING, RetryNotice
from passk_tui.targets.http import make_client, send
from passk_tui.targets.http_proxy import PROXY_REASONS
from passk_tui.targets.reachability import ReachabilityWatch
from passk_tui.targets.retry import TRANSPORT_ERRORS, Backoff, retry_after, transport_reason
from passk_tui.targets.run_answers import ended_turn, error_of
from passk_tui.targets.scrub import Scrubber, key_problem

_MAX_WAIT = 30.0
_PREPARE_BUDGET = 10.0
_CLEANUP_BUDGET = 2.0
#: Seconds past its long-poll window (``wait``) that a request may go unanswered: the bound
#: of every request of an attempt. A request not answered by then is resent, unless no
#: request of any attempt was answered (nor any byte of an answer sent) since it went out:
#: then the stack has stopped
#: answering (frozen: connections accepted, nothing answered) and the evaluation stops
#: with exit 3 instead of storing its attempts as errored. Room for a busy stack and a
#: slow network, short enough that a frozen stack is told within a minute.
ANSWER_MARGIN = 10.0
_MIN_RETRY_ROOM = 0.02
_MIN_POLL_GAP = 0.05
_STATUS_REASONS = {
    429: "429 rate limited",
    500: "500 server error",
    502: "502 bad gateway",
    503: "503 unavailable",
    504: "504 gateway timeout",
}


#: Transport failures after which prepare() stops at once: the stack is not there.
_UNREACHABLE = frozenset(
    {"connection refused", "host not found", "TLS handshake failed", *PROXY_REASONS}
)


def _public_url(url: str) -> str:
    """The stack address as shown to the user: no credentials, no trailing slash."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/")


def _segment(run_id: str) -> str:
    """A Run's id as one path segment: the stack supplies it, so a ``/``, ``?`` or ``#`` in it
    must not lead a poll or a cancel elsewhere on the host (``run_answers`` refuses the ids
    that quoting cannot keep in place: empty, ``.`` and ``..``)."""
    return quote(run_id, safe="")


def _wait_param(seconds: float) -> str:
    return f"{max(0.0, min(_MAX_WAIT, seconds)):.3f}".rstrip("0").rstrip(".")


class StackTarget:
    """Runs attempts as Runs of one agent version on a stack (runs-api.md)."""

    def __init__(
        self,
        url: str,
        key: str | None,
        agent: str,
        version: int,
        evaluation_id: str,
        concurrency: int,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = _public_url(url)
        self.agent = agent
        self.version = version
        self.evaluation_id = evaluation_id
        self.definition = stack_definition(url, agent, version)
        self._base = url.rstrip("/")
        problem = key_problem(key) if key else None
        if problem:
            raise InputError(f"stack key: {problem}")  # typed in the app: not checked before
        # The key lives only in httpx.Headers, whose repr masks it (tracebacks with locals).
        self._headers = httpx.Headers({"Authorization": f"Bearer {key}"} if key else {})
        self._has_key = bool(key)
        parts = urlsplit(url)
        # A stack or proxy may echo the request: nothing it sends back keeps the key.
        self._scrubber = Scrubber(key, parts.password)
        self._client = client or make_client(concurrency)
        self._owns_client = client is None
        self._agent_id: str | None = None
        self._versions: list[int] | None = None
        self._cleanups: set[asyncio.Task[None]] = set()
        self._room = asyncio.Semaphore(concurrency)
        self._post_urls: dict[str, httpx.URL] = {}  # by wait: parsing a URL is not free
        self._bad_url = parts.scheme not in ("http", "https") or not parts.hostname
        self._agent_url = f"{self._base}/v1/agents/{quote(agent, safe='')}"
        #: Whether the stack went away mid-run (requests in a row that could not connect).
        self.reachability = ReachabilityWatch()

    async def _send(
        self,
        method: str,
        url: httpx.URL | str,
        headers: httpx.Headers,
        until: float,
        content: bytes | None = None,
    ) -> httpx.Response:
        """One request, over by ``until`` (loop time) whatever the stack does: a stack that
        trickles its answer a byte at a time never trips a read timeout, so the whole
        exchange is bounded, and its overrun is a TimeoutError like any read timeout.
        Built directly: the client's merging of defaults is per-request work not needed here."""
        loop = asyncio.get_running_loop()
        timeout = max(0.001, until - loop.time())
        limits = {"connect": min(timeout, 10.0), "read": timeout, "write": timeout, "pool": None}
        extensions = {"timeout": limits, "progress": self._heard}
        request = httpx.Request(
            method, url, headers=headers, content=content, extensions=extensions
        )
        try:
            async with asyncio.timeout_at(until):
                response = await send(self._client, request)
        except TRANSPORT_ERRORS as exc:
            self.reachability.no_answer(transport_reason(exc), loop.time())
            raise
        self.reachability.answered(loop.time())
        return response

    def _heard(self) -> None:
        """The stack sent part of an answer: it is alive, however slowly it sends the rest
        (a body trickled a byte a second is not a frozen stack; the deadline still holds)."""
        self.reachability.answered(asyncio.get_running_loop().time())

    def _post_url(self, wait: str) -> httpx.URL:
        url = self._post_urls.get(wait)
        if url is None:
            if len(self._post_urls) > 256:
                self._post_urls.clear()
            url = self._post_urls[wait] = httpx.URL(f"{self._base}/v1/runs?wait={wait}")
        return url

    def __repr__(self) -> str:
        key = "set" if self._has_key else "unset"
        return (
            f"StackTarget(url={self.url!r}, agent={self.agent!r}, version={self.version}, "
            f"key={key})"
        )

    # -- the agent ----------------------------------------------------------------------

    def _fail(self, problem: str) -> RunError:
        return RunError(f"stack at {self.url}: {problem}")

    def _key_refused(self, status: int) -> RunError:
        """The RunError for a 401 or a 403, wherever the stack answers one."""
        if status == 401:
            return self._fail("key refused (401 unauthorized)")
        return self._fail(f"key has no access to agent {self.agent!r} (403 forbidden)")

    async def _fetch_agent(self) -> dict[str, Any]:
        """GET the agent, retrying transient failures briefly; RunError when it cannot be had."""
        if self._bad_url:
            raise InputError(f"--stack {self.url!r}: not an http:// or https:// address")
        loop = asyncio.get_running_loop()
        give_up = loop.time() + _PREPARE_BUDGET
        backoff = Backoff()
        while True:
            try:
                response = await self._send(
                    "GET", self._agent_url, self._headers, loop.time() + 10.0
                )
            except TRANSPORT_ERRORS as exc:
                reason = transport_reason(exc)
                if reason in _UNREACHABLE or loop.time() >= give_up:
                    raise RunError(f"stack at {self.url} unreachable: {reason}") from None
                await asyncio.sleep(backoff.next())
                continue
            status = response.status_code
            if status == 200:
                try:
                    answer: dict[str, Any] = json.loads(response.content)  # answer["id"] checks
                    self._agent_id = str(answer["id"])
                    self._versions = [int(v) for v in answer["versions"]]
                except (ValueError, KeyError, TypeError):
                    raise self._fail(f"agent {self.agent!r}: malformed answer") from None
                return answer
            if status in (401, 403):
                raise self._key_refused(status)
            if status == 404:
                raise self._fail(f"agent {self.agent!r} not found")
            if (status == 429 or status >= 500) and loop.time() < give_up:
                delay = backoff.next(retry_after(response.headers))
                await asyncio.sleep(min(delay, max(0.0, give_up - loop.time())))
                continue
            code, _ = error_of(response)
            raise self._fail(f"agent {self.agent!r}: unexpected answer {status} ({code})")

    async def prepare(self) -> None:
        """Check the key, the agent and the version before any Run; RunError in one line."""
        await self._fetch_agent()
        versions = self._versions or []
        if self.version not in versions:
            listed = ", ".join(str(v) for v in versions) or "none"
            raise self._fail(
                f"agent {self.agent!r} has no version {self.version} (versions: {listed})"
            )

    async def versions(self) -> list[int]:
        """The agent's versions on the stack (fetched once); RunError as for prepare."""
        if self._versions is None:
            await self._fetch_agent()
        return list(self._versions or [])

    # -- one attempt ---------------------------------------------------------------------

    def _body(self, attempt: PlannedAttempt) -> bytes:
        return json.dumps(
            {
                "agent": self._agent_id or self.agent,
                "version": self.version,
                "input": attempt.case.input,
                "metadata": {
                    "evaluation": self.evaluation_id,
                    "case": attempt.case.name,
                    "attempt": attempt.attempt,
                },
            }
        ).encode()

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """Start the attempt's Run (or replay it) and wait for its Turn to end."""
        loop = asyncio.get_running_loop()
        body = self._body(attempt)
        headers = self._headers.copy()
        headers["Idempotency-Key"] = attempt.key
        headers["Content-Type"] = "application/json"
        run_id: str | None = None
        # A Run may exist that we have no id for: a POST is on the wire, or one ended
        # in a 5xx or a transport error (a 429 or a 4xx starts nothing).
        in_post = uncertain = False
        last_error: str | None = None
        backoff = Backoff()
        cleanup: list[asyncio.Task[None]] = []  # the cancel of this attempt's Run, once started
        # A slot on the stack is held until the attempt's Run is cancelled, not only until the
        # attempt ends: the next attempt's Run would otherwise exceed the concurrency there.
        await self._room.acquire()
        try:
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return self._give_up(run_id, uncertain, body, headers, last_error, cleanup)
                wait = _wait_param(remaining)
                sent = loop.time()
                # The stack holds a long poll up to ``wait``: past that and a margin, resend.
                until = sent + min(remaining, _MAX_WAIT) + ANSWER_MARGIN
                try:
                    if run_id is None:
                        in_post = True
                        url: httpx.URL | str = self._post_url(wait)
                        response = await self._send("POST", url, headers, until, body)
                        in_post = False
                    else:
                        url = f"{self._base}/v1/runs/{_segment(run_id)}?wait={wait}"
                        response = await self._send("GET", url, self._headers, until)
                except TRANSPORT_ERRORS as exc:
                    uncertain = uncertain or in_post
                    in_post = False
                    last_error = transport_reason(exc)
                    wait_hint = None
                    stop = self._stopped(sent, last_error)
                    if stop is not None:
                        raise stop from None  # the Run left running: a resume replays it
                else:
                    status = response.status_code
                    if status == 200 or status == 201:
                        turn = ended_turn(response)
                        if isinstance(turn, Turn):
                            return self._scrubber.turn(turn)
                        if turn is None:
                            last_error, wait_hint = "malformed response", None
                            uncertain = uncertain or run_id is None
                        else:
                            run_id = turn
                            backoff = Backoff()  # the Run is alive: long-poll again
                            if loop.time() - sent < _MIN_POLL_GAP < remaining:
                                # The stack held less than asked: do not spin on it.
                                await asyncio.sleep(_MIN_POLL_GAP)
                            continue
                    elif status != 429 and status < 500:
                        return self._scrubber.turn(self._refusal(response, run_id))
                    else:
                        uncertain = uncertain or (status != 429 and run_id is None)
                        last_error = _STATUS_REASONS.get(status, f"{status} server error")
                        wait_hint = retry_after(response.headers)
                remaining = deadline - loop.time()
                if remaining < _MIN_RETRY_ROOM or (wait_hint or 0.0) >= remaining:
                    return self._give_up(run_id, uncertain, body, headers, last_error, cleanup)
                # Never sleep past the deadline: near it, retries come closer together.
                delay = min(backoff.next(wait_hint), remaining / 2)
                notify(last_error, delay)
                await asyncio.sleep(delay)
        except asyncio.CancelledError as exc:
            leave_running = exc.args == (LEAVE_RUNNING,)
            if not leave_running and loop.time() >= deadline:
                stop = await self._silent_at_deadline()
                if stop is not None:
                    raise stop from None  # not timed out: the Run left running for a resume
            if not leave_running and (run_id is not None or uncertain or in_post):
                cleanup.append(self._clean_up(run_id, body, headers))
            raise
        finally:
            if cleanup:
                cleanup[0].add_done_callback(lambda _: self._room.release())
            else:
                self._room.release()

    def _stopped(self, sent: float, reason: str) -> RunError | None:
        """The RunError that ends the evaluation after a request sent at ``sent`` failed for
        ``reason``: the stack gone (connections refused), or stopped answering (the request
        ran out its window and margin, and no other was answered meanwhile); else None."""
        now = asyncio.get_running_loop().time()
        gone = self.reachability.gone(now, self.url)
        if gone is None and reason == "read timed out":
            return self.reachability.stopped_answering(sent, now, self.url)
        return gone

    async def _silent_at_deadline(self) -> RunError | None:
        """The attempt's deadline passed: was the Turn slow, or has the stack stopped answering?

        What the stack answered before says nothing about now (it may have frozen a moment
        ago), so it is asked something harmless (its agent) until ``ANSWER_MARGIN`` has
        passed: any answer, to that or to another request, makes the attempt timed out as
        usual (None); none is an outage (the RunError), not an errored attempt.
        """
        watch = self.reachability
        loop = asyncio.get_running_loop()
        due = loop.time()
        give_up = due + ANSWER_MARGIN
        backoff = Backoff()
        while True:
            with contextlib.suppress(*TRANSPORT_ERRORS):
                await self._send("GET", self._agent_url, self._headers, give_up)
            now = loop.time()
            if watch.answered_since(due):
                return None
            stop = watch.gone(now, self.url)
            if stop is not None or now >= give_up:
                return stop or watch.stopped_answering(due, now, self.url)
            await asyncio.sleep(min(backoff.next(), give_up - now))

    def _refusal(self, response: httpx.Response, run_id: str | None) -> Turn:
        """A 4xx other than 429: a failed Turn, or RunError when the evaluation cannot go on."""
        status = response.status_code
        code, message = error_of(response)
        if status == 409:
            return Turn("failed", error="idempotency key reused with a different body (409)")
        if status == 422:
            return Turn("failed", error=f"{code}: {message}" if message else code, run_id=run_id)
        if status in (401, 403):
            raise self._key_refused(status)
        if status == 404 and run_id is None:
            if code == "version_not_found":
                raise self._fail(f"agent {self.agent!r} has no version {self.version}")
            raise self._fail(f"agent {self.agent!r} not found")
        if status == 404:
            return Turn("failed", error=f"run {run_id} not found on the stack (404)", run_id=run_id)
        return Turn("failed", error=f"unexpected answer {status} ({code})", run_id=run_id)

    def _give_up(
        self,
        run_id: str | None,
        uncertain: bool,
        body: bytes,
        headers: httpx.Headers,
        last_error: str | None,
        cleanup: list[asyncio.Task[None]],
    ) -> Turn:
        """The deadline passed while retrying: cancel what may run, report timed_out at once."""
        if run_id is not None or uncertain:
            cleanup.append(self._clean_up(run_id, body, headers))
        error = f"deadline passed ({last_error})" if last_error else "deadline passed"
        return Turn("timed_out", error=error, run_id=run_id)

    def _clean_up(
        self, run_id: str | None, body: bytes, headers: httpx.Headers
    ) -> asyncio.Task[None]:
        """Cancel the Run on the stack in the background (at most ``_CLEANUP_BUDGET`` s):
        the attempt ends at its deadline, not after a slow stack's answer to the cancel;
        ``aclose`` waits for what is still under way."""
        task = asyncio.ensure_future(self._cancel_run(run_id, body, headers))
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)
        return task

    async def _cancel_run(self, run_id: str | None, body: bytes, headers: httpx.Headers) -> None:
        """Learn the Run's id if need be (the same POST, wait=0: a replay) and cancel it."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + _CLEANUP_BUDGET
        backoff = Backoff()
        while loop.time() < give_up:
            try:
                if run_id is None:
                    url: httpx.URL | str = self._post_url("0")
                    response = await self._send("POST", url, headers, give_up, body)
                    if response.status_code in (200, 201):
                        turn = ended_turn(response)
                        if not isinstance(turn, str):
                            return  # ended (nothing to cancel) or malformed
                        run_id = turn
                        continue
                else:
                    url = f"{self._base}/v1/runs/{_segment(run_id)}/cancel"
                    response = await self._send("POST", url, self._headers, give_up)
                    if response.status_code == 200:
                        return
                status = response.status_code
                if status != 429 and status < 500:
                    return  # refused or unknown: nothing we can cancel
                wait_hint = retry_after(response.headers)
            except TRANSPORT_ERRORS:
                wait_hint = None
            except (ValueError, KeyError, TypeError):
                return
            await asyncio.sleep(min(backoff.next(wait_hint), max(0.0, give_up - loop.time())))

    async def aclose(self) -> None:
        """Let pending cancels finish, then release the connections."""
        if self._cleanups:
            await asyncio.gather(*self._cleanups, return_exceptions=True)
        if self._owns_client:
            await self._client.aclose()
