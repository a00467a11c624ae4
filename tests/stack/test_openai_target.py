"""The openai target against a real (fake) Chat Completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest

from passk_tui.core.errors import InputError, RunError
from passk_tui.targets import http_wire
from passk_tui.targets.openai import OpenAITarget
from tests.support.bomb_server import BombServer
from tests.support.fake_openai import FakeOpenAI, Reply

SECRET = "sk-test-0123456789abcdef"


def attempt(value: Any) -> Any:
    """What execute reads of a planned attempt: ``attempt.case.input``."""
    return SimpleNamespace(case=SimpleNamespace(input=value, name="c"), attempt=1, key="k")


class Notices(list):
    """Collects ``notify(reason, delay)`` calls."""

    def __call__(self, reason: str, delay: float) -> None:
        self.append((reason, delay))


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    fake = FakeOpenAI()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def make_target(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch):
    """Targets against the fake server, with fast backoff; all closed after the test."""
    monkeypatch.setenv("TEST_OPENAI_KEY", SECRET)
    made: list[OpenAITarget] = []

    def make(**kwargs: Any) -> OpenAITarget:
        options = {
            "base_url": server.base_url,
            "model": "tiny",
            "api_key_env": "TEST_OPENAI_KEY",
            "concurrency": 2,
            "label": "agents.toml: agent 'llm' version 1",
            "backoff_base": 0.001,
            "backoff_cap": 0.01,
        }
        options.update(kwargs)
        target = OpenAITarget(**options)
        made.append(target)
        return target

    yield make
    for target in made:
        await target.aclose()


async def run(target: OpenAITarget, value: Any, notify: Any = None, seconds: float = 30):
    loop = asyncio.get_running_loop()
    return await target.execute(
        attempt(value), loop.time() + seconds, notify if notify is not None else Notices()
    )


async def test_answer_usage_and_request_shape(server: FakeOpenAI, make_target) -> None:
    server.answer = "391"
    target = make_target(system="Answer with the number only.")
    await target.prepare()
    turn = await run(target, "What is 17 * 23?")
    assert turn.status == "completed"
    assert turn.output == "391"
    assert turn.error is None
    assert turn.usage == {"input_tokens": 11, "output_tokens": 2}
    assert turn.turn_id == "chatcmpl-1"

    [seen] = server.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.json == {
        "model": "tiny",
        "messages": [
            {"role": "system", "content": "Answer with the number only."},
            {"role": "user", "content": "What is 17 * 23?"},
        ],
    }
    assert seen.headers["Authorization"] == f"Bearer {SECRET}"


async def test_params_go_into_the_body_as_given(server: FakeOpenAI, make_target) -> None:
    params = {"temperature": 0, "top_p": 1, "max_tokens": 256, "seed": 7, "stop": ["\n"]}
    turn = await run(make_target(params=params), "What is 17 * 23?")
    assert turn.status == "completed"
    [seen] = server.seen
    assert seen.json == {
        "model": "tiny",
        "messages": [{"role": "user", "content": "What is 17 * 23?"}],
        **params,
    }


async def test_request_timeout_bounds_each_request(server: FakeOpenAI, make_target) -> None:
    server.push(Reply(delay=3.0))
    notices = Notices()
    # The attempt has 30 s; each request only 0.3 s: the slow reply times out, the next works.
    turn = await run(make_target(request_timeout=0.3), "x", notices, seconds=30)
    assert turn.status == "completed"
    [(reason, _)] = notices
    assert reason.startswith(f"no response in time from {server.base_url}/chat/completions")


async def test_prepare_passes_when_any_server_answers(server: FakeOpenAI, make_target) -> None:
    await make_target().prepare()  # the fake has no /models: a 405 still means someone is there
    assert server.requests == 0


async def test_prepare_stops_when_the_endpoint_refuses_connections(make_target) -> None:
    port = closed_port()
    target = make_target(base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(RunError) as caught:
        await target.prepare()
    assert str(caught.value) == (
        f"agents.toml: agent 'llm' version 1: cannot reach http://127.0.0.1:{port}/v1: "
        "connection refused"
    )
    assert caught.value.exit_code == 3


async def test_no_system_prompt_and_json_input(server: FakeOpenAI, make_target) -> None:
    target = make_target(api_key_env=None)
    value = {"document": "refund policy", "task": "summarize"}
    turn = await run(target, value)
    assert turn.status == "completed"
    [seen] = server.seen
    [message] = seen.json["messages"]
    assert message["role"] == "user"
    assert json.loads(message["content"]) == value
    assert "Authorization" not in seen.headers


async def test_missing_usage_is_none(server: FakeOpenAI, make_target) -> None:
    server.push(Reply(content="ok", usage=None))
    turn = await run(make_target(), "x")
    assert (turn.status, turn.usage) == ("completed", None)


async def test_retries_then_success(server: FakeOpenAI, make_target) -> None:
    server.fail(500, times=2)
    server.fail(429, times=1)
    notices = Notices()
    turn = await run(make_target(), "x", notices)
    assert turn.status == "completed"
    assert turn.output == "42"
    assert server.requests == 4
    assert [reason for reason, _ in notices] == [
        f"HTTP 500 from {server.base_url}/chat/completions",
        f"HTTP 500 from {server.base_url}/chat/completions",
        f"HTTP 429 from {server.base_url}/chat/completions",
    ]
    assert all(0 <= delay <= 0.01 for _, delay in notices)


async def test_retries_exhausted_is_failed_with_last_error(server: FakeOpenAI, make_target) -> None:
    server.fail(503, times=10)
    notices = Notices()
    turn = await run(make_target(), "x", notices)
    assert turn.status == "failed"
    assert turn.error == f"HTTP 503 from {server.base_url}/chat/completions"
    assert server.requests == 6  # the first request and 5 retries
    assert len(notices) == 5


async def test_retry_after_is_honoured(server: FakeOpenAI, make_target) -> None:
    server.fail(429, times=1, headers={"Retry-After": "0.3"})
    notices = Notices()
    loop = asyncio.get_running_loop()
    started = loop.time()
    turn = await run(make_target(), "x", notices)
    assert turn.status == "completed"
    assert notices[0][1] == pytest.approx(0.3)
    assert loop.time() - started >= 0.3


async def test_backoff_grows_to_the_cap(server: FakeOpenAI, make_target, monkeypatch) -> None:
    monkeypatch.setattr("passk_tui.targets.retry.random.uniform", lambda low, high: high)
    server.fail(500, times=5)
    notices = Notices()
    turn = await run(make_target(backoff_base=0.001, backoff_cap=0.005), "x", notices)
    assert turn.status == "completed"
    assert [delay for _, delay in notices] == pytest.approx([0.001, 0.002, 0.004, 0.005, 0.005])


async def test_bad_request_fails_at_once_with_the_servers_message(
    server: FakeOpenAI, make_target
) -> None:
    server.fail(400, times=1, body={"error": {"message": "model 'tiny' not found"}})
    notices = Notices()
    turn = await run(make_target(), "x", notices)
    assert turn.status == "failed"
    assert turn.error == (
        f"HTTP 400 from {server.base_url}/chat/completions: model 'tiny' not found"
    )
    assert server.requests == 1
    assert notices == []


async def test_an_answer_cut_off_by_its_token_limit_is_completed_and_says_so(
    server: FakeOpenAI, make_target
) -> None:
    server.push(Reply(content="The answer is", finish_reason="length"))
    turn = await run(make_target(), "x")
    assert (turn.status, turn.output, turn.error) == ("completed", "The answer is", None)
    assert turn.finish_reason == "length"


async def test_a_normal_answer_keeps_its_finish_reason(server: FakeOpenAI, make_target) -> None:
    turn = await run(make_target(), "x")
    assert (turn.status, turn.finish_reason) == ("completed", "stop")


async def test_an_answer_the_endpoints_filter_stopped_is_stopped(
    server: FakeOpenAI, make_target
) -> None:
    server.push(Reply(content="", finish_reason="content_filter"))
    turn = await run(make_target(), "x")
    assert (turn.status, turn.finish_reason) == ("stopped", "content_filter")
    assert turn.error == "the endpoint's filter stopped the answer (finish_reason content_filter)"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<html>oops</html>", "malformed response from {url}: '<html>oops</html>'"),
        ({"choices": []}, "malformed response from {url}: "),
        ({"object": "chat.completion"}, "malformed response from {url}: "),
        (
            {"choices": [{"message": {"content": 7}, "finish_reason": "stop"}]},
            "malformed response from {url}: message content is not text",
        ),
    ],
)
async def test_malformed_response_is_failed(
    server: FakeOpenAI, make_target, body: Any, expected: str
) -> None:
    server.push(Reply(body=body))
    turn = await run(make_target(), "x")
    assert turn.status == "failed"
    assert turn.error.startswith(expected.format(url=f"{server.base_url}/chat/completions"))
    assert server.requests == 1


def closed_port() -> int:
    """A port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_connection_refused_is_retried_then_failed(make_target, monkeypatch) -> None:
    port = closed_port()
    notices = Notices()
    target = make_target(base_url=f"http://127.0.0.1:{port}/v1")
    turn = await run(target, "x", notices)
    assert turn.status == "failed"
    assert turn.error.startswith(f"cannot reach http://127.0.0.1:{port}/v1/chat/completions: ")
    assert len(notices) == 5


async def test_a_slow_server_is_a_timeout_and_retried(server: FakeOpenAI, make_target) -> None:
    server.push(Reply(delay=3.0))
    notices = Notices()
    # The deadline sizes the read timeout (at least 1 s): the slow reply times out, the next works.
    turn = await run(make_target(), "x", notices, seconds=1.0)
    assert turn.status == "completed"
    assert len(notices) == 1
    assert notices[0][0].startswith(f"no response in time from {server.base_url}")


async def test_cancel_while_waiting_is_passed_on(server: FakeOpenAI, make_target) -> None:
    server.latency = 5.0
    target = make_target()
    task = asyncio.create_task(run(target, "x"))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_the_key_never_leaks(server: FakeOpenAI, make_target) -> None:
    echo = {"error": {"message": f"invalid key {SECRET}"}}
    server.fail(500, times=1, body=echo)
    server.fail(401, times=1, body=echo)
    notices = Notices()
    target = make_target()
    turn = await run(target, "x", notices)
    assert turn.status == "failed"
    assert server.seen[0].headers["Authorization"] == f"Bearer {SECRET}"
    texts = [turn.error, repr(target), *(reason for reason, _ in notices)]
    assert all(SECRET not in text for text in texts)
    assert "***" in turn.error  # the echoed key was scrubbed from the server's message


def test_unset_key_variable_is_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOT_SET_KEY", raising=False)
    with pytest.raises(InputError) as caught:
        OpenAITarget(
            base_url="http://127.0.0.1:1/v1",
            model="m",
            api_key_env="NOT_SET_KEY",
            label="agents.toml: agent 'x' version 2",
        )
    assert str(caught.value) == (
        "agents.toml: agent 'x' version 2: environment variable NOT_SET_KEY is not set"
    )


def test_repr_names_endpoint_and_variable_not_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K", SECRET)
    target = OpenAITarget(base_url="http://h/v1/", model="m", api_key_env="K")
    assert repr(target) == (
        "OpenAITarget(url='http://h/v1/chat/completions', model='m', api_key_env='K')"
    )


@pytest.mark.parametrize("corrupt", [False, True], ids=["bomb", "corrupt-gzip"])
async def test_an_answer_that_cannot_be_read_is_retried_then_failed_with_its_reason(
    make_target, monkeypatch, corrupt: bool
) -> None:
    """A gzip bomb (8 MiB against a 1 MiB limit) or a broken gzip stream: never inflated
    whole, never httpx's DecodingError; retried as a bad answer, then failed saying why."""
    monkeypatch.setattr(http_wire, "BODY_LIMIT", 1024 * 1024)
    endpoint = BombServer("gzip", 8 * 1024 * 1024, corrupt=b'{"choices": []}' if corrupt else None)
    url = await endpoint.start()
    notices = Notices()
    turn = await run(make_target(base_url=f"{url}/v1"), "x", notices)
    await endpoint.stop()
    reason = "malformed response" if corrupt else "response too large"
    assert (turn.status, turn.error) == ("failed", f"{reason} from {url}/v1/chat/completions")
    assert (len(notices), endpoint.posts) == (5, 6)
