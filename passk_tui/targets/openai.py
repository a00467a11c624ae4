"""A local agent that is a model behind any OpenAI-compatible Chat Completions endpoint."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.agent_definition import openai_definition
from passk_tui.core.text.mentions import shorten
from passk_tui.core.transcript import Message, usage_sum
from passk_tui.targets.conversing.openai_chat import assistant_wire, request_messages, tool_requests
from passk_tui.targets.conversing.tools import ToolBox
from passk_tui.targets.conversing.tools_file import MAX_STEPS
from passk_tui.targets.http import make_client, send
from passk_tui.targets.http_proxy import PROXY_REASONS
from passk_tui.targets.retry import TRANSPORT_ERRORS, Backoff, retry_after, transport_reason
from passk_tui.targets.scrub import Scrubber, key_problem

if TYPE_CHECKING:
    from passk_tui.core.run.attempt_keys import PlannedAttempt
    from passk_tui.core.run.target import RetryNotice

#: Resends after the first request before an attempt is failed.
MAX_RETRIES = 5
#: Full-jitter backoff (targets.retry.Backoff): first ceiling and cap, in seconds.
BACKOFF_BASE = 0.05
BACKOFF_CAP = 5.0
#: finish_reason values that mean the endpoint withheld the answer: nothing of the model's to
#: judge. An answer cut off at its token limit ("length") is the model's, and is judged.
_WITHHELD = frozenset({"content_filter"})
#: Seconds prepare() waits to reach the endpoint before the evaluation stops (exit 3).
PROBE_TIMEOUT = 10.0
#: Transport failures after which prepare() stops at once: nothing listens there.
_UNREACHABLE = frozenset(
    {
        "connection refused",
        "host not found",
        "cannot connect",
        "connect timed out",
        "TLS handshake failed",
        *PROXY_REASONS,
    }
)


class OpenAITarget:
    """Asks one model per attempt with one user message (after the system prompt, if any).

    429, 5xx, connection errors and timeouts are retried with full-jitter
    backoff (honouring Retry-After) up to ``MAX_RETRIES`` times; any other 4xx,
    or a response that is not a chat completion, fails the attempt at once.
    ``params`` go into every request body beside model and messages, as given;
    ``request_timeout`` bounds each request (the attempt's deadline bounds all).
    The API key lives only in the request headers: never in a repr, an error
    or a retry notice.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        system: str | None = None,
        api_key_env: str | None = None,
        params: dict[str, Any] | None = None,
        request_timeout: float | None = None,
        concurrency: int = 4,
        label: str = "",
        max_retries: int = MAX_RETRIES,
        backoff_base: float = BACKOFF_BASE,
        backoff_cap: float = BACKOFF_CAP,
        tools: ToolBox | None = None,
        max_steps: int = MAX_STEPS,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.system = system
        self.api_key_env = api_key_env
        self.params = dict(params or {})
        self.request_timeout = request_timeout
        self.label = label
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        #: The tools the model may call (``tools = "tools.toml"``); None: it has none.
        self.tools = tools
        self.max_steps = max_steps
        headers = {"Content-Type": "application/json"}
        key = None
        if api_key_env:
            where = f"{label or 'openai agent'}: environment variable {api_key_env}"
            key = os.environ.get(api_key_env)
            if not key:
                raise InputError(f"{where} is not set")
            problem = key_problem(key)
            if problem:
                raise InputError(f"{where}: {problem}")
            headers["Authorization"] = f"Bearer {key}"
        # An endpoint or proxy may echo the request: no answer or error keeps the key.
        self._scrubber = Scrubber(key)
        # Scrubbed too: a key pasted into the system prompt or params must not be stored.
        self.definition = self._scrubber.value(
            openai_definition(
                base_url=base_url,
                model=model,
                system=system,
                api_key_env=api_key_env,
                params=self.params,
                timeout=request_timeout,
            )
        )
        if tools is not None:
            # What the model could call is part of what was measured.
            self.definition["tools"] = {
                "file": str(tools.file.path),
                "sha256": tools.file.sha256,
                "names": list(tools.tools),
            }
            self.definition["max_steps"] = max_steps
        self._client = make_client(concurrency)
        # Built once, not per request as client.post would: the client's default headers
        # merged with ours (httpx.Headers masks the key in its repr) and the parsed URL.
        self._url: httpx.URL | None = None
        self._headers = httpx.Headers(self._client.headers)
        self._headers.update(headers)

    def __repr__(self) -> str:
        key = f", api_key_env={self.api_key_env!r}" if self.api_key_env else ""
        return f"OpenAITarget(url={self.url!r}, model={self.model!r}{key})"

    async def prepare(self) -> None:
        """An endpoint nothing answers at is no answer of the model's: RunError (exit 3) at once.

        One GET of ``<base_url>/models``: any HTTP response at all (even 404) means
        a server is there; only a failure to connect stops the evaluation.
        """
        base = self.url.removesuffix("/chat/completions")
        timeout = httpx.Timeout(PROBE_TIMEOUT)
        request = httpx.Request(
            "GET",
            base + "/models",
            headers=self._headers,
            extensions={"timeout": timeout.as_dict()},
        )
        try:
            await send(self._client, request)
        except TRANSPORT_ERRORS as exc:
            reason = transport_reason(exc)
            if reason in _UNREACHABLE:
                where = self.label or "openai agent"
                raise RunError(self._scrub(f"{where}: cannot reach {base}: {reason}")) from None

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """Ask the model (retrying transient failures) and map its answer to a Turn; with tools,
        run the calls it asks for and ask again, until a plain answer or ``max_steps``."""
        messages = request_messages(attempt.case.input, self.system)
        if self.tools is None:
            response = await self._ask(self._body(messages), deadline, notify)
            if isinstance(response, Turn):
                return response
            return self._scrubber.turn(self._reply(response)[0])
        return await self._with_tools(messages, deadline, notify, self.tools)

    async def _with_tools(
        self,
        messages: list[dict[str, Any]],
        deadline: float,
        notify: RetryNotice,
        tools: ToolBox,
    ) -> Turn:
        """The tool loop: each step one request; each call answered; the steps kept."""
        loop = asyncio.get_running_loop()
        steps: list[Message] = []
        turn = Turn("failed", error="no step was made")
        for step in range(1, self.max_steps + 1):
            began = loop.time()
            response = await self._ask(self._body(messages), deadline, notify)
            if isinstance(response, Turn):
                return self._ended(response, steps)
            turn, message = self._reply(response)
            turn = self._scrubber.turn(turn)
            requests = tool_requests(message or {}, step)
            if isinstance(requests, str):
                failed = Turn("failed", error=f"malformed response from {self.url}: {requests}")
                return self._ended(failed, steps)
            said = Message(
                "assistant",
                turn.output if isinstance(turn.output, str) else "",
                0,
                usage=turn.usage,
                duration=loop.time() - began,
                calls=tuple(r.id for r in requests),
            )
            steps.append(said)
            if turn.status != "completed" or not requests:
                return self._ended(turn, steps)
            messages.append(assistant_wire(said.content, requests))
            for request in requests:
                arguments, answer = await tools.call(request.name, request.arguments, deadline)
                content = self._scrub(answer.content)
                steps.append(
                    Message(
                        "tool",
                        content,
                        0,
                        duration=answer.duration,
                        id=request.id,
                        name=request.name,
                        arguments=self._scrubber.value(arguments),
                        error=answer.error,
                    )
                )
                messages.append({"role": "tool", "tool_call_id": request.id, "content": content})
        stopped = Turn(
            "stopped",
            output=turn.output,
            error=f"max_steps {self.max_steps} reached and the model still called tools",
            turn_id=turn.turn_id,
            finish_reason=turn.finish_reason,
        )
        return self._ended(stopped, steps)

    @staticmethod
    def _ended(turn: Turn, steps: list[Message]) -> Turn:
        """The Turn of a tool loop: its steps, and the tokens of every step."""
        usage = usage_sum(step.usage for step in steps) if steps else turn.usage
        return replace(turn, usage=usage, steps=tuple(steps))

    def _body(self, messages: list[dict[str, Any]]) -> bytes:
        """A request body: the model, the messages, the tools if any, the version's params."""
        extra = {} if self.tools is None else {"tools": self.tools.declared()}
        return json.dumps(
            {"model": self.model, "messages": messages, **extra, **self.params}
        ).encode()

    async def _ask(
        self, body: bytes, deadline: float, notify: RetryNotice
    ) -> httpx.Response | Turn:
        """A 200 response to ``body``, retrying transient failures; a failed Turn otherwise."""
        if self._url is None:
            self._url = httpx.URL(self.url)  # a bad URL raises here, as client.post did
        loop = asyncio.get_running_loop()
        backoff = Backoff(self.backoff_base, self.backoff_cap)
        while True:
            # The engine enforces the deadline; reads wait no longer than it anyway.
            remaining = max(1.0, deadline - loop.time())
            if self.request_timeout is not None:
                remaining = min(remaining, self.request_timeout)
            timeout = httpx.Timeout(remaining, connect=min(10.0, remaining))
            wait_hint: float | None = None
            request = httpx.Request(
                "POST",
                self._url,
                headers=self._headers,
                content=body,
                extensions={"timeout": timeout.as_dict()},
            )
            try:
                response = await send(self._client, request)
            except TRANSPORT_ERRORS as exc:
                reason = self._scrub(_transport_reason(self.url, exc))
            else:
                status = response.status_code
                if status == 200:
                    return response
                if status != 429 and status < 500:
                    return Turn("failed", error=self._scrub(self._http_error(response)))
                reason = f"HTTP {status} from {self.url}"
                wait_hint = retry_after(response.headers)
            if backoff.failures >= self.max_retries:
                return Turn("failed", error=reason)
            delay = backoff.next(wait_hint)
            notify(reason, delay)
            await asyncio.sleep(delay)

    async def aclose(self) -> None:
        """Close the shared HTTP client."""
        await self._client.aclose()

    def _reply(self, response: httpx.Response) -> tuple[Turn, dict[str, Any] | None]:
        """A 200 response as a Turn: completed (cut off at its token limit too), or stopped
        when the endpoint withheld the answer; the finish reason is kept either way. Beside
        it the reply's message (None when malformed), where its tool calls are.

        Unscrubbed: ``execute`` masks the key in all of it (an echoing endpoint)."""
        try:
            data = json.loads(response.content)
            choice = data["choices"][0]
            message = choice["message"]
            content = message.get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            malformed = f"malformed response from {self.url}: {_peek(response)}"
            return Turn("failed", error=malformed), None
        if content is None:
            content = ""  # e.g. a tool call or a refusal: no text answer
        if not isinstance(content, str):
            return Turn(
                "failed", error=f"malformed response from {self.url}: message content is not text"
            ), None
        usage = _usage(data.get("usage"))
        turn_id = data.get("id") if isinstance(data.get("id"), str) else None
        raw = choice.get("finish_reason")
        finish = shorten(raw) if isinstance(raw, str) and raw else None
        status, error = "completed", None
        if finish in _WITHHELD:
            status = "stopped"
            error = f"the endpoint's filter stopped the answer (finish_reason {finish})"
        turn = Turn(
            status, output=content, error=error, turn_id=turn_id, usage=usage, finish_reason=finish
        )
        return turn, message

    def _http_error(self, response: httpx.Response) -> str:
        """``HTTP 400 from <url>: <the server's message>``."""
        message = ""
        try:
            data = json.loads(response.content)
            error = data.get("error") if isinstance(data, dict) else None
            if isinstance(error, dict):
                message = str(error.get("message") or "")
            elif isinstance(error, str):
                message = error
        except ValueError:
            pass
        if not message:
            message = response.text.strip()[:300]
        head = f"HTTP {response.status_code} from {self.url}"
        return f"{head}: {' '.join(message.split())}" if message else head

    def _scrub(self, text: str) -> str:
        """Remove the key from text that may echo a request (servers sometimes do)."""
        return self._scrubber.text(text)


def _transport_reason(url: str, exc: BaseException) -> str:
    """Why a request got no usable response: timed out waiting, could not reach the
    server, or its answer could not be read (too large, malformed, cut short)."""
    detail = transport_reason(exc)
    if detail in _UNREACHABLE:
        return f"cannot reach {url}: {detail}"
    if "timed out" in detail:
        return f"no response in time from {url}: {detail}"
    return f"{detail} from {url}"


def _peek(response: httpx.Response) -> str:
    """The start of a response body, for a malformed-response error."""
    text = " ".join(response.text.split())
    return repr(text[:120]) if text else "empty body"


def _usage(raw: Any) -> dict[str, Any] | None:
    """OpenAI usage as the Turn's: ``{"input_tokens", "output_tokens"}``."""
    if not isinstance(raw, dict):
        return None
    usage = {}
    if isinstance(raw.get("prompt_tokens"), int):
        usage["input_tokens"] = raw["prompt_tokens"]
    if isinstance(raw.get("completion_tokens"), int):
        usage["output_tokens"] = raw["completion_tokens"]
    return usage or None
