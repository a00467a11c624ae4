"""A scriptable fake OpenAI-compatible Chat Completions server for the openai target's tests.

A real ``aiohttp.web`` server on 127.0.0.1 (ephemeral port) running in the
test's own event loop. Each request takes the next scripted ``Reply`` if any
is queued, else the default answer; every request is recorded (body and
headers) and counted by status.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from aiohttp import web

from tests.support.processes import until_stopped


@dataclass
class Reply:
    """One scripted response; ``body`` (JSON value, or raw text) replaces the completion."""

    status: int = 200
    content: str | None = "42"
    finish_reason: str = "stop"
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13}
    )
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    tool_calls: list[dict[str, Any]] | None = None
    """The message's ``tool_calls`` (the model asks for tools), as a real endpoint sends them."""


def tool_call(name: str, arguments: Any, ident: str = "call_1") -> dict[str, Any]:
    """One ``tool_calls`` entry: a function call with its arguments as JSON text."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": text}}


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    json: Any


class FakeOpenAI:
    """The server: ``await start()`` gives the base URL (``http://127.0.0.1:PORT/v1``)."""

    def __init__(
        self,
        answer: str | Callable[[list[dict]], str] = "42",
        latency: float = 0.0,
        respond: Callable[[dict], Reply] | None = None,
    ):
        self.answer = answer
        #: The model's behaviour as a whole: the request body in, the reply out (tool calls,
        #: a conversation); None: ``answer`` says what every request gets.
        self.respond = respond
        self.latency = latency
        self.script: deque[Reply] = deque()
        self.seen: list[Seen] = []
        self.statuses: Counter[int] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        #: Append the request's Authorization header to every answer and error message,
        #: as a careless proxy or a debugging endpoint would.
        self.echo_authorization = False
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    @property
    def requests(self) -> int:
        """How many chat completion requests arrived."""
        return len(self.seen)

    def push(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order."""
        self.script.extend(replies)

    def fail(self, status: int, times: int, **kwargs: Any) -> None:
        """Queue ``times`` error replies with this status (kwargs go to ``Reply``)."""
        body = kwargs.pop("body", {"error": {"message": f"injected {status}", "type": "test"}})
        self.push(*(Reply(status=status, body=body, **kwargs) for _ in range(times)))

    async def start(self) -> str:
        """Listen on an ephemeral port; return the base URL to give the target."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        # Tests end with replies still sleeping; do not wait for them.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self.base_url

    async def stop(self) -> None:
        """Stop listening and drop open connections."""
        if self._runner is not None:
            await self._runner.cleanup()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.seen.append(Seen(request.path, dict(request.headers), body))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self.script.popleft() if self.script else self._default_reply(body)
            delay = reply.delay or self.latency
            if delay:
                await asyncio.sleep(delay)
            self.statuses[reply.status] += 1
            if self.echo_authorization:
                reply = _echoing(reply, request.headers.get("Authorization", ""))
            if reply.body is not None:
                if isinstance(reply.body, str):
                    return web.Response(status=reply.status, text=reply.body, headers=reply.headers)
                return web.json_response(reply.body, status=reply.status, headers=reply.headers)
            completion = {
                "id": f"chatcmpl-{len(self.seen)}",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "message": _message(reply),
                        "finish_reason": reply.finish_reason,
                    }
                ],
            }
            if reply.usage is not None:
                completion["usage"] = reply.usage
            return web.Response(
                status=reply.status,
                text=json.dumps(completion),
                content_type="application/json",
                headers=reply.headers,
            )
        finally:
            self.in_flight -= 1

    def _default_reply(self, body: dict) -> Reply:
        """What a request gets when nothing is queued."""
        if self.respond is not None:
            return self.respond(body)
        return Reply(content=self._default(body))

    def _default(self, body: dict) -> str:
        if callable(self.answer):
            return self.answer(body["messages"])
        return self.answer


def _message(reply: Reply) -> dict[str, Any]:
    """The completion's message: its text, and the tool calls it asks for if any."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    return message


def _echoing(reply: Reply, authorization: str) -> Reply:
    """The reply with ``authorization`` at the end of its answer, or of its error's message."""
    said = f" (you sent Authorization: {authorization})"
    if isinstance(reply.body, dict) and isinstance(reply.body.get("error"), dict):
        error = {**reply.body["error"], "message": reply.body["error"]["message"] + said}
        return replace(reply, body={**reply.body, "error": error})
    if reply.body is None:
        return replace(reply, content=(reply.content or "") + said)
    return reply


def text_usage(messages: list[dict], answer: str) -> dict[str, int]:
    """Usage as a real endpoint would vary it: about four characters a token, each way."""
    prompt = sum(len(str(m.get("content", ""))) for m in messages) // 4 + 1
    completion = len(answer) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion}


class ServedOpenAI(FakeOpenAI):
    """The fake as a server of its own (``python -m tests.support.fake_openai``): answers
    ``answer``, ``wrong`` of the time something else, with usage that follows the text."""

    def __init__(self, answer: str, wrong: float, seed: int, latency: float) -> None:
        super().__init__(answer, latency)
        self._rng = random.Random(seed)
        self._wrong = wrong

    def _default_reply(self, body: dict) -> Reply:
        content = self._default(body) if self._rng.random() >= self._wrong else "I am not sure."
        return Reply(content=content, usage=text_usage(body.get("messages", []), content))


def main(argv: list[str] | None = None) -> None:
    """Serve until SIGINT/SIGTERM; the base URL (``http://127.0.0.1:PORT/v1``) on stdout."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.fake_openai")
    parser.add_argument("--answer", default="391")
    parser.add_argument("--wrong", type=float, default=0.2, help="share of other answers")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    serve(lambda: ServedOpenAI(args.answer, args.wrong, args.seed, args.latency))


def serve(make: Callable[[], FakeOpenAI]) -> None:
    """Serve ``make()``'s server until SIGINT/SIGTERM: its base URL on stdout, then, at the
    end, the count of requests it answered."""

    async def serving() -> None:
        server = make()
        print(await server.start(), flush=True)
        try:
            await until_stopped()
        finally:
            await server.stop()
            print(json.dumps({"requests": server.requests}), flush=True)

    asyncio.run(serving())


if __name__ == "__main__":
    main()
