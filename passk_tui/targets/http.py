"""One HTTP client factory for every target: httpx's API over aiohttp's transport.

httpx's own connection pool caps out near 115 requests/s at concurrency 50
(httpx issue #3215); the aiohttp transport reaches ~830/s there and ~1,400/s
at 200, so the evaluation shares one such client sized to ``--concurrency``.
"""

from __future__ import annotations

import httpx
from httpx_aiohttp import AiohttpTransport


def make_client(
    concurrency: int,
    base_url: str = "",
    headers: dict[str, str] | None = None,
) -> httpx.AsyncClient:
    """A client whose pool holds one connection per Run in flight, plus room for cancels."""
    connections = concurrency + max(4, concurrency // 4)
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    transport = AiohttpTransport(limits=limits)
    # Per-request timeouts are set by the caller (long polls need more than 5 s reads).
    return httpx.AsyncClient(
        base_url=base_url,
        headers=headers,
        transport=transport,
        timeout=httpx.Timeout(60.0, connect=10.0),
        limits=limits,
    )
