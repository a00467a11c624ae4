"""Environment proxies for our transport: which requests go through one, and the CONNECT tunnel.

httpx honours ``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` (either case)
only on its own transport; ours (``http_transport``) read none of them, so a run behind a
corporate proxy could not reach its stack. The variables are read once, by the stdlib's
rules (the lower-case name wins; ``NO_PROXY`` lists hosts and domain suffixes, or ``*``).
An ``http://`` request through a proxy is sent to it whole (the absolute URL as its target);
an ``https://`` one goes through a ``CONNECT`` tunnel, TLS end to end with the origin. Only
``http://`` proxies are spoken: a proxy at any other scheme is refused with its reason,
never passed over (that would send a run around the proxy its user set).
"""

from __future__ import annotations

import asyncio
import base64
import urllib.request
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import httpx

from passk_tui.targets.http_wire import Reasoned, parse_head


class ProxyRefused(Reasoned, httpx.ProxyError):
    reason = "the proxy refused the tunnel"


class ProxyUnsupported(Reasoned, httpx.ProxyError):
    reason = "proxy not supported (only http:// proxies)"


#: Reasons a request never reached the origin because of the proxy on its way.
PROXY_REASONS = frozenset({ProxyRefused.reason, ProxyUnsupported.reason})


@dataclass(frozen=True, slots=True)
class Proxy:
    """Where a proxy listens, and the Proxy-Authorization its URL's credentials make.
    ``supported`` is False for a scheme we do not speak: requests routed to it fail."""

    host: str
    port: int
    authorization: bytes | None = None
    supported: bool = True

    def __repr__(self) -> str:  # the credentials stay out of reprs
        return f"Proxy({self.host!r}, {self.port})"


def _proxy(url: str) -> Proxy:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    supported = parts.scheme == "http" and bool(parts.hostname)
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = b"Basic " + base64.b64encode(pair)
    try:
        port = parts.port or 80
    except ValueError:
        port, supported = 0, False
    return Proxy(parts.hostname or "", port, authorization, supported)


class ProxyRoutes:
    """Which proxy, if any, a request to (scheme, host, port) goes through."""

    __slots__ = ("_by_origin", "_variables")

    def __init__(self, variables: dict[str, str]) -> None:
        self._variables = variables
        self._by_origin: dict[tuple[bytes, str, int], Proxy | None] = {}

    @classmethod
    def from_environment(cls) -> ProxyRoutes | None:
        """The routes the environment sets, or None when it names no proxy (the usual case)."""
        variables = urllib.request.getproxies_environment()
        if not any(variables.get(s) for s in ("http", "https", "all")):
            return None
        return cls(variables)

    def route(self, scheme: bytes, host: str, port: int) -> Proxy | None:
        key = (scheme, host, port)
        if key not in self._by_origin:
            self._by_origin[key] = self._lookup(scheme.decode("ascii"), host, port)
        return self._by_origin[key]

    def _lookup(self, scheme: str, host: str, port: int) -> Proxy | None:
        # Public since Python 2, missing from typeshed.
        bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
        if bypass(f"{host}:{port}", self._variables):
            return None
        url = self._variables.get(scheme) or self._variables.get("all")
        return _proxy(url) if url else None


def forwarded(request: httpx.Request, proxy: Proxy) -> tuple[bytes, list[bytes]]:
    """What a forwarding proxy is sent for an http:// request: the absolute URL as the
    request's target, and the proxy's credentials (if its URL has any) as a header line."""
    url = request.url
    target = b"%s://%s%s" % (url.raw_scheme, url.netloc, url.raw_path)
    extra = [b"Proxy-Authorization: " + proxy.authorization] if proxy.authorization else []
    return target, extra


async def tunnel(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    proxy: Proxy,
    authority: bytes,
    request: httpx.Request,
) -> None:
    """Ask the proxy on this connection for a tunnel to ``authority`` (host:port); return
    once it stands (a 2xx), else ProxyRefused. The proxy's answer text is not kept."""
    lines = [b"CONNECT %s HTTP/1.1" % authority, b"Host: " + authority]
    if proxy.authorization:
        lines.append(b"Proxy-Authorization: " + proxy.authorization)
    writer.write(b"\r\n".join(lines) + b"\r\n\r\n")
    await writer.drain()
    try:
        head = parse_head(await reader.readuntil(b"\r\n\r\n"), request)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        raise ProxyRefused("tunnel answer cut short", request=request) from None
    if not 200 <= head.status < 300:
        raise ProxyRefused(f"tunnel refused ({head.status})", request=request)
