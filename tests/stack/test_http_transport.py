"""Our HTTP/1.1 transport over real sockets, against servers that misbehave on purpose.

Each server here is a few lines of asyncio speaking bytes, so that every way an
endpoint can answer (or not) is on the wire as written: kept-alive and closed
connections, chunks, no length, interim answers, cut bodies, resets, a 408 on an
idle connection, silence, TLS with and without a trusted certificate.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import ssl
import struct
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from passk_tui.targets import http_wire
from passk_tui.targets.http import make_client, send
from passk_tui.targets.retry import transport_reason

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Server:
    """A raw server's address and how many connections it took."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.connections = 0


@contextlib.asynccontextmanager
async def serving(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[Server]:
    """``handler`` answers every connection to 127.0.0.1:<free port> until the block ends."""
    tasks: set[asyncio.Task[None]] = set()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.connections += 1
        tasks.add(asyncio.current_task())  # type: ignore[arg-type]
        try:
            await handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client went, or the test is over
        finally:
            writer.close()

    listening = await asyncio.start_server(connected, "127.0.0.1", 0, ssl=tls)
    port = listening.sockets[0].getsockname()[1]
    server = Server(f"{'https' if tls else 'http'}://127.0.0.1:{port}")
    async with listening:
        yield server
        for task in tasks:
            task.cancel()


async def requests_of(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """Each request's head on a connection (the bodies here are short and read with it)."""
    while True:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        if length:
            await reader.readexactly(length)
        yield head


def answering(*answers: bytes) -> Handler:
    """A handler that answers each request on a connection with the next of ``answers``."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        index = 0
        async for _ in requests_of(reader):
            writer.write(answers[min(index, len(answers) - 1)])
            await writer.drain()
            index += 1

    return handle


async def get(
    client: httpx.AsyncClient, url: str, read: float | None = 5.0, method: str = "GET"
) -> httpx.Response:
    timeout = {"connect": 5.0, "read": read, "write": 5.0, "pool": 5.0}
    return await send(client, httpx.Request(method, url, extensions={"timeout": timeout}))


async def failure(client: httpx.AsyncClient, url: str, read: float | None = 5.0) -> str:
    with pytest.raises(httpx.TransportError) as caught:
        await get(client, url, read)
    return transport_reason(caught.value)


async def test_one_connection_carries_every_request_in_turn() -> None:
    async with serving(answering(OK)) as server:
        client = make_client(4)
        answers = [await get(client, server.url + f"/{i}") for i in range(20)]
        await client.aclose()
    assert {a.content for a in answers} == {b"ok"}
    assert server.connections == 1


async def test_requests_in_flight_get_a_connection_each_never_more_than_the_pool() -> None:
    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async for _ in requests_of(reader):
            await asyncio.sleep(0.05)
            writer.write(OK)

    async with serving(slow) as server:
        client = make_client(2)  # 2 + 4 connections
        answers = await asyncio.gather(*(get(client, server.url) for _ in range(30)))
        await client.aclose()
    assert len(answers) == 30
    assert server.connections == 6


async def test_chunks_extensions_and_trailers_make_one_body() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
    )
    async with serving(answering(chunked)) as server:
        client = make_client(1)
        first = await get(client, server.url)
        second = await get(client, server.url)
        await client.aclose()
    assert first.content == second.content == b"hello world"
    assert server.connections == 1


async def test_a_body_without_a_length_ends_with_its_connection() -> None:
    async def until_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\n\r\nall of ")
        writer.write(b"it")
        await writer.drain()

    async with serving(until_close) as server:
        client = make_client(1)
        answers = [await get(client, server.url) for _ in range(2)]
        await client.aclose()
    assert [a.content for a in answers] == [b"all of it"] * 2
    assert server.connections == 2


async def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    """Closed after its answer (a keep-alive timeout), or after a 408 sent unasked."""

    async def one_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(OK)
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n")

    async with serving(one_then_close) as server:
        client = make_client(1)
        first = await get(client, server.url)
        await asyncio.sleep(0.2)
        second = await get(client, server.url)
        await client.aclose()
    assert (first.status_code, second.status_code) == (200, 200)
    assert server.connections == 2


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
        b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\n"
        b"2\r\nok\r\n0\r\n\r\n",
    ],
)
async def test_a_connection_its_answer_says_not_to_reuse_is_not_reused(answer: bytes) -> None:
    """Even when the server keeps it open: a smuggled second answer would read as ours."""
    async with serving(answering(answer)) as server:
        client = make_client(1)
        answers = [await get(client, server.url) for _ in range(3)]
        await client.aclose()
    assert [a.content for a in answers] == [b"ok"] * 3
    assert server.connections == 3


async def test_interim_answers_are_skipped_and_endless_ones_are_malformed() -> None:
    interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n" + OK
    async with serving(answering(interim)) as server:
        client = make_client(1)
        assert (await get(client, server.url)).content == b"ok"
        await client.aclose()
    endless = b"HTTP/1.1 100 Continue\r\n\r\n" * 20
    async with serving(answering(endless)) as server:
        client = make_client(1)
        assert await failure(client, server.url) == "malformed response"
        await client.aclose()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (b"", "connection lost"),  # closed before a byte of the answer
        (b"HTTP/1.1 200 OK\r\nContent-Le", "response cut short"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf", "response cut short"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", "response cut short"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed response"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd", "malformed response"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"a" * (70 * 1024) + b"\r\n\r\n", "malformed response"),
        (b"<html>not http</html>\r\n\r\n", "malformed response"),
        (b"HTTP/1.1 101 Switching Protocols\r\n\r\n", "malformed response"),
    ],
)
async def test_an_answer_that_breaks_off_or_is_not_http_fails_with_its_reason(
    answer: bytes, reason: str
) -> None:
    async def once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()

    async with serving(once) as server:
        client = make_client(1)
        assert await failure(client, server.url) == reason
        await client.aclose()


async def test_a_reset_mid_answer_is_a_reset() -> None:
    async def reset(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart")
        await writer.drain()
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # RST, not FIN

    async with serving(reset) as server:
        client = make_client(1)
        assert await failure(client, server.url) in ("connection reset", "response cut short")
        await client.aclose()


async def test_a_body_over_the_limit_is_cut_off_however_it_is_framed(monkeypatch) -> None:
    monkeypatch.setattr(http_wire, "BODY_LIMIT", 1000)

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        chunked = server.connections == 2
        writer.write(
            b"HTTP/1.1 200 OK\r\n" + (b"Transfer-Encoding: chunked\r\n\r\n" if chunked else b"\r\n")
        )
        for _ in range(100):
            writer.write(b"100\r\n" + b"x" * 256 + b"\r\n" if chunked else b"x" * 256)
            await writer.drain()

    async with serving(endless) as server:
        client = make_client(1)
        assert await failure(client, server.url) == "response too large"  # to the end
        assert await failure(client, server.url) == "response too large"  # chunks
        declared = b"HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n"
        async with serving(answering(declared)) as other:
            assert await failure(client, other.url) == "response too large"
        await client.aclose()


async def test_silence_is_a_read_timeout_and_its_connection_is_dropped() -> None:
    async def silent_first(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if server.connections == 1:
            await reader.readuntil(b"\r\n\r\n")
            await asyncio.sleep(30)
        await answering(OK)(reader, writer)

    async with serving(silent_first) as server:
        client = make_client(1)
        assert await failure(client, server.url, read=0.2) == "read timed out"
        assert (await get(client, server.url)).content == b"ok"  # a new connection
        await client.aclose()
    assert server.connections == 2


async def test_a_request_cancelled_midway_leaves_no_connection_to_reuse() -> None:
    async def slow_first(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if server.connections == 1:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab")
            await asyncio.sleep(30)
        await answering(OK)(reader, writer)

    async with serving(slow_first) as server:
        client = make_client(1)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await get(client, server.url)
        assert (await get(client, server.url)).content == b"ok"
        await client.aclose()
    assert server.connections == 2


async def test_a_request_that_ends_after_the_client_closed_keeps_no_connection() -> None:
    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await asyncio.sleep(0.1)
        writer.write(OK)
        await writer.drain()
        await reader.read()  # until the client closes its end
        closed.set()

    closed = asyncio.Event()
    async with serving(slow) as server:
        client = make_client(1)
        request = asyncio.ensure_future(get(client, server.url))
        await asyncio.sleep(0.02)
        await client.aclose()
        assert (await request).content == b"ok"
        async with asyncio.timeout(5):
            await closed.wait()


async def test_a_full_pool_is_a_pool_timeout() -> None:
    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    async with serving(hang) as server:
        client = make_client(1)
        waiting = [asyncio.ensure_future(get(client, server.url, read=None)) for _ in range(5)]
        await asyncio.sleep(0.1)
        with pytest.raises(httpx.PoolTimeout):
            timeout = {"connect": 5.0, "read": None, "write": 5.0, "pool": 0.1}
            await send(client, httpx.Request("GET", server.url, extensions={"timeout": timeout}))
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        await client.aclose()


async def test_connect_failures_name_their_kind() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    client = make_client(1)
    assert await failure(client, f"http://127.0.0.1:{port}/") == "connection refused"
    assert await failure(client, "http://no-such-host.invalid/") == "host not found"
    await client.aclose()


@pytest.fixture
def certificate(tmp_path: Path) -> Path:
    """A self-signed certificate for 127.0.0.1 (key beside it), made with openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    return tmp_path / "cert.pem"


async def test_tls_is_verified_against_the_trusted_certificates(
    certificate: Path, monkeypatch
) -> None:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, certificate.with_name("key.pem"))
    async with serving(answering(OK), tls=context) as server:
        client = make_client(1)
        assert await failure(client, server.url) == "TLS handshake failed"  # not trusted
        await client.aclose()
        monkeypatch.setenv("SSL_CERT_FILE", str(certificate))
        client = make_client(1)
        assert (await get(client, server.url)).content == b"ok"
        assert (await get(client, server.url)).content == b"ok"
        await client.aclose()
    assert server.connections == 1  # the refused handshake never connected; one kept alive


async def test_an_address_that_never_answers_is_passed_over_for_the_next(monkeypatch) -> None:
    """Happy eyeballs: the host's first address takes no connection (a listener whose
    queue is full drops every SYN, as a black-holed IPv6 route does); its second is
    tried a quarter second later, long before the connect timeout."""
    full = socket.socket()
    full.bind(("127.0.0.1", 0))
    full.listen(0)
    queued = []
    for _ in range(4):  # fill the accept queue: later SYNs are dropped, connects hang
        waiting = socket.socket()
        waiting.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            waiting.connect(full.getsockname())
        queued.append(waiting)
    loop = asyncio.get_running_loop()
    async with serving(answering(OK)) as server:
        good = int(server.url.rsplit(":", 1)[1])
        addresses = [full.getsockname(), ("127.0.0.1", good)]
        infos = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", a) for a in addresses]

        async def resolve(*args, **kwargs):
            return infos

        monkeypatch.setattr(loop, "getaddrinfo", resolve)
        client = make_client(1)
        answer = await get(client, "http://dual-stack.test/")  # connect bound: 5 s
        await client.aclose()
    for sock in (*queued, full):
        sock.close()
    assert answer.content == b"ok"
