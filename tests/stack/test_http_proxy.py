"""The proxies the environment names, honoured by our transport, against a real forwarding proxy.

HTTP_PROXY / HTTPS_PROXY / ALL_PROXY (either case) and NO_PROXY were ignored by the stack
and the ``openai`` agent (issue 30): httpx reads them only for its own transport.
"""

from __future__ import annotations

import asyncio
import base64
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from passk_tui.core.errors import RunError
from passk_tui.targets.http import make_client
from passk_tui.targets.openai import OpenAITarget
from tests.stack.test_http_transport import OK, answering, certificate, failure, get, serving
from tests.support.fake_openai import FakeOpenAI
from tests.support.forward_proxy import ForwardProxy
from tests.support.stack_target import one_attempt, planned, target_for, with_key

__all__ = ["certificate"]  # a fixture, used by name

PROXY_VARIABLES = (
    *("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"),
    *("http_proxy", "https_proxy", "all_proxy", "no_proxy"),
)


@pytest.fixture
async def proxy(monkeypatch) -> AsyncIterator[ForwardProxy]:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    forward = ForwardProxy()
    forward.url = await forward.start()  # type: ignore[attr-defined]
    yield forward
    await forward.stop()


async def test_a_stack_run_goes_through_http_proxy(make_stack, proxy, monkeypatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    server = make_stack(**with_key())
    turn = await one_attempt(server, 10)
    assert (turn.status, turn.output) == ("completed", "a")
    assert proxy.asked[0] == ("GET", f"{server.url}/v1/agents/demo")
    assert server.stats().runs_created == 1


@pytest.mark.parametrize("no_proxy", ["127.0.0.1", "*", "localhost, .example.com,127.0.0.1"])
async def test_no_proxy_sends_its_hosts_straight(proxy, monkeypatch, no_proxy: str) -> None:
    monkeypatch.setenv("http_proxy", proxy.url)
    monkeypatch.setenv("NO_PROXY", no_proxy)
    async with serving(answering(OK)) as server:
        client = make_client(1)
        assert (await get(client, server.url)).content == b"ok"
        await client.aclose()
    assert proxy.asked == []


async def test_https_goes_through_a_connect_tunnel_tls_end_to_end(
    proxy, monkeypatch, certificate: Path
) -> None:
    """all_proxy with credentials: CONNECT carries them; TLS is checked against the origin."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate))
    monkeypatch.setenv("all_proxy", proxy.url.replace("://", "://ann:s%40cret@"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, certificate.with_name("key.pem"))
    async with serving(answering(OK), tls=context) as server:
        client = make_client(1)
        assert (await get(client, server.url)).content == b"ok"
        assert (await get(client, server.url)).content == b"ok"  # the tunnel kept alive
        await client.aclose()
    assert proxy.asked == [("CONNECT", server.url.removeprefix("https://"))]
    assert proxy.credentials == [b"Basic " + base64.b64encode(b"ann:s@cret")]


async def test_a_proxy_that_refuses_the_tunnel_or_cannot_be_spoken_is_named(
    monkeypatch, certificate: Path
) -> None:
    refusing = ForwardProxy(require=b"Basic secret")
    url = await refusing.start()
    monkeypatch.setenv("HTTPS_PROXY", url)
    monkeypatch.setenv("HTTP_PROXY", "socks5://127.0.0.1:1080")
    client = make_client(1)
    assert await failure(client, "https://127.0.0.1:9/") == "the proxy refused the tunnel"
    assert await failure(client, "http://127.0.0.1:9/") == (
        "proxy not supported (only http:// proxies)"
    )
    await client.aclose()
    await refusing.stop()


async def test_the_openai_agent_goes_through_http_proxy(proxy, monkeypatch) -> None:
    """The ``openai`` agent at an http:// endpoint goes through HTTP_PROXY; prepare too."""
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    endpoint = FakeOpenAI()
    await endpoint.start()
    target = OpenAITarget(base_url=endpoint.base_url, model="m")
    await target.prepare()
    loop = asyncio.get_running_loop()
    attempt = planned(["a"], 1)[0]
    turn = await target.execute(attempt, loop.time() + 10, lambda r, d: None)
    await target.aclose()
    await endpoint.stop()
    assert (turn.status, turn.output) == ("completed", "42")
    assert [method for method, _ in proxy.asked][:1] == ["GET"]
    assert proxy.asked[0][1] == f"{endpoint.base_url}/models"


async def test_an_unreachable_proxy_stops_the_stack_check_at_once(make_stack, monkeypatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    server = make_stack(**with_key())
    target = target_for(server)
    with pytest.raises(RunError, match="unreachable: connection refused"):
        await target.prepare()
    await target.aclose()


async def test_a_proxy_that_cannot_be_spoken_stops_the_stack_check_in_one_line(
    make_stack, monkeypatch
) -> None:
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:1080")
    server = make_stack(**with_key())
    target = target_for(server)
    with pytest.raises(RunError) as caught:
        await target.prepare()
    await target.aclose()
    assert str(caught.value) == (
        f"stack at {server.url} unreachable: proxy not supported (only http:// proxies)"
    )
