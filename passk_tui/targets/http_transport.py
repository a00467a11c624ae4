"""Our HTTP/1.1 transport for httpx: kept-alive connections over asyncio streams.

httpx's own pool caps out near 115 requests/s at concurrency 50 (httpx issue
#3215). aiohttp's transport was fast, but importing aiohttp cost every run
~0.13 s of its start-up, half a one-case run. The targets send small JSON
requests to one origin and read small JSON answers, so this is all they need:
one connection per request in flight, reused while the server keeps it open;
bodies by Content-Length, chunks or the connection's end; every read bounded
in size (``http_wire``) and in time (the request's ``timeout`` extension); a
compressed body inflated within the same size limit (``http_decoding``).
The TLS context is made on the first https connection, so an http:// run never
loads the CA bundle.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator

import httpx

from passk_tui.targets import http_wire
from passk_tui.targets.http_decoding import decoded
from passk_tui.targets.http_proxy import (
    Proxy,
    ProxyRoutes,
    ProxyUnsupported,
    forwarded,
    tunnel,
)
from passk_tui.targets.http_wire import (
    HEAD_LIMIT,
    INTERIM_LIMIT,
    CannotConnect,
    ConnectTimedOut,
    CutShort,
    Framing,
    Head,
    HostNotFound,
    Lost,
    Malformed,
    PoolTimedOut,
    ReadTimedOut,
    Refused,
    Reset,
    TlsFailed,
    TooLarge,
    WriteTimedOut,
    chunk_size,
    framing,
    parse_head,
    request_head,
)

_READ_SIZE = 64 * 1024
#: scheme, host, port, and the proxy on the way (None: straight to the origin).
_Origin = tuple[bytes, str, int, Proxy | None]


class _Connection:
    """One TCP (or TLS) connection to an origin, or to a proxy that forwards (``via``) each
    request to it; broken once any exchange on it fails."""

    __slots__ = ("reader", "via", "writer")

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, via: Proxy | None = None
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.via = via

    def idle_and_open(self) -> bool:
        """Whether the server has neither closed it nor sent anything unasked while it was idle
        (a server may answer 408 on an idle connection, then close it: that answer is no
        answer to the next request). asyncio has no public look at what is buffered."""
        unasked = len(getattr(self.reader, "_buffer", b""))
        return not (unasked or self.reader.at_eof() or self.writer.is_closing())

    def close(self) -> None:
        self.writer.close()


class Transport(httpx.AsyncBaseTransport):
    """At most ``connections`` requests in flight, each on a connection of its own."""

    def __init__(self, connections: int, proxies: ProxyRoutes | None = None) -> None:
        self._proxies = proxies
        self._slots = asyncio.Semaphore(connections)
        self._idle: dict[_Origin, list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        try:
            async with asyncio.timeout(timeouts.get("pool")):
                await self._slots.acquire()
        except TimeoutError:
            raise PoolTimedOut("no connection free", request=request) from None
        try:
            url = request.url
            port = url.port or (443 if url.scheme == "https" else 80)
            host = url.raw_host.decode("ascii")
            proxy = self._proxies.route(url.raw_scheme, host, port) if self._proxies else None
            origin = (url.raw_scheme, host, port, proxy)
            connection = self._reuse(origin) or await self._connect(origin, request, timeouts)
            try:
                head, body, how = await _exchange(connection, request, timeouts)
            except BaseException:
                connection.close()  # cancelled or failed midway: its state is unknown
                raise
            if how.reusable and not self._closed:
                self._idle.setdefault(origin, []).append(connection)
            else:
                connection.close()
        finally:
            self._slots.release()
        headers = head.headers
        if how.codings:
            # Decoded here, in bounded steps; httpx would inflate it again, whole, unbounded.
            body = await decoded(body, how.codings, request)
            headers = [(n, v) for n, v in headers if n.lower() != b"content-encoding"]
        return httpx.Response(
            head.status,
            headers=headers,
            stream=httpx.ByteStream(body),
            extensions={"http_version": head.version, "reason_phrase": head.phrase},
        )

    async def aclose(self) -> None:
        """Close the idle connections; those in use close when their request ends."""
        self._closed = True
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()

    def _reuse(self, origin: _Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.idle_and_open():
                return connection
            connection.close()
        return None

    async def _connect(
        self, origin: _Origin, request: httpx.Request, timeouts: dict[str, float | None]
    ) -> _Connection:
        scheme, host, port, proxy = origin
        tls = None
        if scheme == b"https":
            if self._tls is None:
                self._tls = httpx.create_ssl_context()  # certifi, or SSL_CERT_FILE / _DIR
            tls = self._tls
        if proxy is not None and not proxy.supported:
            raise ProxyUnsupported("proxy scheme not supported", request=request)
        try:
            async with asyncio.timeout(timeouts.get("connect")):
                # Happy eyeballs (RFC 8305): a host whose IPv6 route is a black hole is
                # reached over IPv4 a quarter second later, not at the connect timeout.
                reader, writer = await asyncio.open_connection(
                    proxy.host if proxy else host,
                    proxy.port if proxy else port,
                    ssl=None if proxy else tls,
                    server_hostname=host if tls and not proxy else None,
                    limit=HEAD_LIMIT,
                    happy_eyeballs_delay=0.25,
                )
                if proxy is None:
                    return _Connection(reader, writer)
                if tls is None:
                    return _Connection(reader, writer, via=proxy)
                try:
                    await tunnel(reader, writer, proxy, b"%s:%d" % (host.encode(), port), request)
                    await writer.start_tls(tls, server_hostname=host)
                except BaseException:
                    writer.close()
                    raise
                return _Connection(reader, writer)
        except TimeoutError:
            raise ConnectTimedOut("connect timed out", request=request) from None
        except socket.gaierror as exc:
            raise HostNotFound("host not found", request=request) from exc
        except (ssl.SSLError, ssl.CertificateError) as exc:
            raise TlsFailed("TLS handshake failed", request=request) from exc
        except ConnectionRefusedError as exc:
            raise Refused("connection refused", request=request) from exc
        except OSError as exc:
            raise CannotConnect("cannot connect", request=request) from exc


async def _exchange(
    connection: _Connection, request: httpx.Request, timeouts: dict[str, float | None]
) -> tuple[Head, bytes, Framing]:
    """Send ``request`` and read its whole response: head, body (as sent), its framing."""
    body = await request.aread()  # the bytes the request was built with, read once
    writer = connection.writer
    try:
        async with asyncio.timeout(timeouts.get("write")):
            if connection.via is None:
                lead = request_head(request, len(body))
            else:  # to a forwarding proxy: the absolute URL, and its credentials if any
                lead = request_head(request, len(body), forwarded(request, connection.via))
            writer.write(lead + body)
            await writer.drain()
    except TimeoutError:
        raise WriteTimedOut("write timed out", request=request) from None
    except OSError as exc:
        raise Lost("connection lost", request=request) from exc
    read = timeouts.get("read")
    async with _reading(request):
        for _ in range(INTERIM_LIMIT + 1):
            async with asyncio.timeout(read):
                head = parse_head(await _head_bytes(connection.reader, request), request)
            _heard(request)
            if head.status >= 200:
                break
            if head.status == 101:
                raise Malformed("an upgrade nobody asked for", request=request)
        else:
            raise Malformed("too many interim responses", request=request)
        how = framing(head, request)
        content = await _body(connection.reader, how, read, request)
    return head, content, how


@contextlib.asynccontextmanager
async def _reading(request: httpx.Request) -> AsyncIterator[None]:
    """A read's failures as ours: timed out, reset, or cut short."""
    try:
        yield
    except TimeoutError:
        raise ReadTimedOut("read timed out", request=request) from None
    except asyncio.LimitOverrunError as exc:
        raise Malformed("a line over the head limit", request=request) from exc
    except (ConnectionResetError, BrokenPipeError) as exc:
        raise Reset("connection reset", request=request) from exc
    except OSError as exc:
        raise Lost("connection lost", request=request) from exc


async def _head_bytes(reader: asyncio.StreamReader, request: httpx.Request) -> bytes:
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise CutShort("response head cut short", request=request) from None
        raise Lost("server closed the connection", request=request) from None


async def _body(
    reader: asyncio.StreamReader, how: Framing, read: float | None, request: httpx.Request
) -> bytes:
    """The body as ``how`` frames it; each read waits at most ``read`` seconds."""
    if how.length is not None:
        return await _exactly(reader, how.length, read, request)
    if not how.chunked:
        return await _parts(reader, None, read, request)
    chunks: list[bytes] = []
    size = 0
    while True:
        async with asyncio.timeout(read):
            line = await _line(reader, request)
        length = chunk_size(line, request)
        if length == 0:
            break
        size += length
        if size > http_wire.BODY_LIMIT:
            raise TooLarge("body over the limit", request=request)
        chunks.append(await _exactly(reader, length, read, request))
        _heard(request)
        if await _exactly(reader, 2, read, request) != b"\r\n":
            raise Malformed("chunk not followed by CRLF", request=request)
    for _ in range(64):  # trailers, up to the blank line that ends them
        async with asyncio.timeout(read):
            if await _line(reader, request) == b"\r\n":
                return b"".join(chunks)
    raise Malformed("too many trailers", request=request)


async def _line(reader: asyncio.StreamReader, request: httpx.Request) -> bytes:
    try:
        return await reader.readuntil(b"\r\n")
    except asyncio.IncompleteReadError:
        raise CutShort("chunked body cut short", request=request) from None


async def _exactly(
    reader: asyncio.StreamReader, count: int, read: float | None, request: httpx.Request
) -> bytes:
    """``count`` bytes: at once when short (the usual answer is in the buffer already)."""
    if count > _READ_SIZE:
        return await _parts(reader, count, read, request)
    try:
        async with asyncio.timeout(read):
            return await reader.readexactly(count)
    except asyncio.IncompleteReadError:
        raise CutShort("body cut short", request=request) from None


async def _parts(
    reader: asyncio.StreamReader, count: int | None, read: float | None, request: httpx.Request
) -> bytes:
    """``count`` bytes, or (None) all until the connection ends, read in parts so that
    ``read`` bounds each wait rather than the whole body, and the body stays in its limit."""
    parts: list[bytes] = []
    size = 0
    while count is None or size < count:
        want = _READ_SIZE if count is None else min(count - size, _READ_SIZE)
        async with asyncio.timeout(read):
            part = await reader.read(want)
        if not part:
            if count is None:
                break
            raise CutShort("body cut short", request=request)
        size += len(part)
        if size > http_wire.BODY_LIMIT:
            raise TooLarge("body over the limit", request=request)
        parts.append(part)
        _heard(request)
    return b"".join(parts)


def _heard(request: httpx.Request) -> None:
    """Tell the sender that the server sent something (a head, a part of a body): a server
    that answers slowly is not one that stopped answering. The ``progress`` extension is
    ours: a callable without arguments, called after each head and each part of a body."""
    progress = request.extensions.get("progress")
    if progress is not None:
        progress()
