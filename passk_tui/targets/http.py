"""One HTTP client factory for every target: httpx's API over our own transport.

The evaluation shares one client whose pool holds a connection per Run in flight
(``http_transport``: why not httpx's own pool, nor aiohttp's).
"""

from __future__ import annotations

import httpx

from passk_tui.targets.http_proxy import ProxyRoutes
from passk_tui.targets.http_transport import Transport


def make_client(
    concurrency: int, base_url: str = "", headers: dict[str, str] | None = None
) -> httpx.AsyncClient:
    """A client whose pool holds one connection per Run in flight, plus room for cancels;
    through the proxies the environment names (httpx reads none once given a transport)."""
    connections = concurrency + max(4, concurrency // 4)
    # Per-request timeouts are set by the caller (long polls need more than 5 s reads).
    return httpx.AsyncClient(
        base_url=base_url,
        headers=headers,
        transport=Transport(connections, ProxyRoutes.from_environment()),
        timeout=httpx.Timeout(60.0, connect=10.0),
    )


async def send(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """``client.send(request)`` with the body read, minus the work no target here uses.

    ``AsyncClient.send`` wraps the transport in auth, redirect, event-hook and cookie
    handling; the cookie jar alone (urllib compat objects per response) cost ~10% of the
    CPU of an evaluation at 0 ms Turns, and the whole wrapping ~20%. Targets send
    complete requests (their own headers and ``timeout`` extension), follow no
    redirects and keep no cookies, so the request goes straight to the transport the
    client would have picked for its URL (ours, which routes it through a proxy if the
    environment names one).
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
