"""Compressed answers through our transport: inflated inside the body limit, a step at a time.

A body of half a MB of gzip that inflates to 512 MiB took a run to 1 GB and held its
loop for half a minute (issue 30); a corrupt one escaped as httpx's DecodingError.
"""

from __future__ import annotations

import asyncio
import gzip
import zlib

import httpx
import pytest

from passk_tui.targets import http_decoding, http_wire
from passk_tui.targets.http import make_client
from tests.stack.test_http_transport import answering, failure, get, serving
from tests.support.bomb_server import bomb, corrupt_gzip

PAYLOAD = b'{"answer": "' + b"forty-two " * 300 + b'"}'


def compressed(body: bytes, coding: bytes, *extra: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nContent-Length: %d\r\n" % (
        coding,
        len(body),
    )
    return head + b"".join(extra) + b"\r\n" + body


@pytest.mark.parametrize(
    ("coding", "body"),
    [
        (b"gzip", gzip.compress(PAYLOAD)),
        (b"x-gzip", gzip.compress(PAYLOAD[:100]) + gzip.compress(PAYLOAD[100:])),  # 2 members
        (b"deflate", zlib.compress(PAYLOAD)),
        (b"deflate", zlib.compress(PAYLOAD)[2:-4]),  # raw deflate, as some servers send it
        (b"gzip, identity", gzip.compress(PAYLOAD)),
        (b"deflate, GZIP", gzip.compress(zlib.compress(PAYLOAD))),
    ],
    ids=["gzip", "gzip-two-members", "deflate", "raw-deflate", "with-identity", "two-codings"],
)
async def test_a_compressed_answer_is_read_as_its_payload(coding: bytes, body: bytes) -> None:
    async with serving(answering(compressed(body, coding))) as server:
        client = make_client(1)
        response = await get(client, server.url)
        await client.aclose()
    assert response.content == PAYLOAD
    assert "content-encoding" not in response.headers  # nothing left for httpx to inflate


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
async def test_a_compression_bomb_is_too_large_once_inflated_and_the_loop_runs_meanwhile(
    monkeypatch, coding: str
) -> None:
    """8 MiB of zeros in ~8 KB against a 4 MiB limit: too large, the loop turned throughout."""
    monkeypatch.setattr(http_wire, "BODY_LIMIT", 4 * 1024 * 1024)
    monkeypatch.setattr(http_decoding, "STEP", 64 * 1024)
    body = bomb(coding, 8 * 1024 * 1024)
    assert len(body) < http_wire.BODY_LIMIT // 100
    turns = 0

    async def turning() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    async with serving(answering(compressed(body, coding.encode()))) as server:
        client = make_client(1)
        ticker = asyncio.ensure_future(turning())
        await asyncio.sleep(0)
        before = turns
        assert await failure(client, server.url) == "response too large"
        during = turns - before
        ticker.cancel()
        # Still usable: the connection read its whole (compressed) answer.
        assert await failure(client, server.url) == "response too large"
        assert server.connections == 1
        await client.aclose()
    assert during >= 4 * 1024 * 1024 // (64 * 1024)  # a turn of the loop per step at least


async def test_a_deadline_stops_inflating_midway(monkeypatch) -> None:
    """Cancelled a few turns of the loop in (as a deadline does), inflating ends there."""
    monkeypatch.setattr(http_decoding, "STEP", 64 * 1024)
    request = httpx.Request("GET", "http://127.0.0.1/")
    inflating = asyncio.ensure_future(
        http_decoding.decoded(bomb("gzip", 32 * 1024 * 1024), (b"gzip",), request)
    )
    for _ in range(3):
        await asyncio.sleep(0)
    assert not inflating.done()
    inflating.cancel()
    with pytest.raises(asyncio.CancelledError):
        await inflating


@pytest.mark.parametrize(
    ("coding", "body"),
    [
        (b"gzip", corrupt_gzip(PAYLOAD)),
        (b"gzip", gzip.compress(PAYLOAD)[:-20]),  # cut short
        (b"deflate", b"\x00not deflate at all"),
        (b"br", b"\x0b\x02\x80hello\x03"),  # a coding never asked for
        (b"gzip, gzip, gzip", gzip.compress(gzip.compress(gzip.compress(PAYLOAD)))),
    ],
    ids=["corrupt", "cut-short", "not-deflate", "br", "three-codings"],
)
async def test_a_body_that_does_not_inflate_is_a_malformed_answer(
    coding: bytes, body: bytes
) -> None:
    async with serving(answering(compressed(body, coding))) as server:
        client = make_client(1)
        with pytest.raises(httpx.TransportError) as caught:
            await get(client, server.url)
        await client.aclose()
    assert isinstance(caught.value, http_wire.Malformed), caught.value
    assert str(caught.value) in {
        "corrupt compressed body",
        "compressed body cut short",
        "a content coding not asked for",
        "too many content codings",
    }
