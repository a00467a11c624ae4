"""A forwarding HTTP proxy on 127.0.0.1: absolute-URL requests and CONNECT tunnels, on asyncio.

Real enough for a client to be proven to go through it: each connection's first request
names where it goes (``GET http://host:port/path`` or ``CONNECT host:port``); the proxy
connects there and then copies bytes both ways until either side closes (the client
sends one origin's requests on a connection, as ours does). What each connection
asked for, and the Proxy-Authorization it sent, are kept for the test to read.
``require`` makes it answer 407 to a connection without those credentials.

``python -m tests.support.forward_proxy`` prints its URL and serves until stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from tests.support.loopback import LoopbackServer
from tests.support.processes import until_stopped


class ForwardProxy(LoopbackServer):
    """``await start()`` gives ``http://127.0.0.1:PORT``; ``asked`` lists each connection's
    request line target as (method, target); ``credentials`` the Proxy-Authorization values."""

    def __init__(self, require: bytes | None = None) -> None:
        super().__init__()
        self.require = require
        self.asked: list[tuple[str, str]] = []
        self.credentials: list[bytes | None] = []

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._forward(await reader.readuntil(b"\r\n\r\n"), reader, writer)

    async def _forward(
        self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        line, *headers = head[:-4].split(b"\r\n")
        method, target, version = line.decode("ascii").split(" ")
        self.asked.append((method, target))
        auth = next(
            (v.strip() for n, _, v in (h.partition(b":") for h in headers)
             if n.lower() == b"proxy-authorization"),
            None,
        )  # fmt: skip
        self.credentials.append(auth)
        if self.require is not None and auth != self.require:
            writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            first = b""
        else:
            url = urlsplit(target)
            upstream_reader, upstream_writer = await asyncio.open_connection(
                url.hostname, url.port or 80
            )
            path = (url.path or "/") + (f"?{url.query}" if url.query else "")
            kept = [h for h in headers if not h.lower().startswith(b"proxy-authorization:")]
            first = b"\r\n".join([f"{method} {path} {version}".encode(), *kept]) + b"\r\n\r\n"
        upstream_writer.write(first)
        try:
            await asyncio.gather(_copy(reader, upstream_writer), _copy(upstream_reader, writer))
        finally:
            upstream_writer.close()


async def _copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Bytes from ``source`` to ``sink`` until ``source`` ends, then end ``sink``'s side."""
    with contextlib.suppress(ConnectionError, OSError):
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
        if sink.can_write_eof():
            sink.write_eof()


async def _main() -> None:
    proxy = ForwardProxy()
    print(await proxy.start(), flush=True)
    await until_stopped()
    await proxy.stop()


if __name__ == "__main__":
    asyncio.run(_main())
