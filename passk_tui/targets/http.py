"""One HTTP client factory for every target: httpx's API over aiohttp's transport.

httpx's own connection pool caps out near 115 requests/s at concurrency 50
(httpx issue #3215); the aiohttp transport reaches ~830/s there and ~1,400/s
at 200, so the evaluation shares one such client sized to ``--concurrency``.
"""

from __future__ import annotations

import ssl

import httpx
from httpx_aiohttp import AiohttpTransport


def make_client(
    concurrency: int,
    base_url: str = "",
    headers: dict[str, str] | None = None,
    *,
    tls: bool = True,
) -> httpx.AsyncClient:
    """A client whose pool holds one connection per Run in flight, plus room for cancels.

    ``tls=False`` (every request goes to an http:// address) skips loading the CA
    bundle, ~25 ms of every start-up; the context left in its place trusts no
    certificate, so a TLS connection through it would fail, never go unverified.
    """
    connections = concurrency + max(4, concurrency // 4)
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    verify: ssl.SSLContext | bool = True if tls else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    transport = AiohttpTransport(verify=verify, limits=limits)
    # Per-request timeouts are set by the caller (long polls need more than 5 s reads).
    return httpx.AsyncClient(
        base_url=base_url,
        headers=headers,
        transport=transport,
        timeout=httpx.Timeout(60.0, connect=10.0),
        limits=limits,
    )


async def send(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """``client.send(request)`` with the body read, minus the work no target here uses.

    ``AsyncClient.send`` wraps the transport in auth, redirect, event-hook and cookie
    handling; the cookie jar alone (urllib compat objects per response) cost ~10% of the
    CPU of an evaluation at 0 ms Turns, and the whole wrapping ~20%. Targets send
    complete requests (their own headers and ``timeout`` extension), follow no
    redirects and keep no cookies, so the request goes straight to the transport the
    client would have picked for its URL (the aiohttp one, or an environment proxy's).
    Exceptions are the transport's, exactly as through ``client.send``.
    """
    # httpx (0.28) has no public accessor for the transport a URL is mounted on.
    transport = client._transport_for_url(request.url)
    response = await transport.handle_async_request(request)
    response.request = request
    try:
        await response.aread()
    finally:
        await response.aclose()
    return response
