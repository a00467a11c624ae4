"""The HTTP/1.1 wire format a hostile endpoint can feed us: heads, framing, chunk sizes."""

from __future__ import annotations

import httpx
import pytest

from passk_tui.targets import http_wire
from passk_tui.targets.http_wire import (
    Framing,
    Malformed,
    TooLarge,
    chunk_size,
    framing,
    parse_head,
    request_head,
)
from passk_tui.targets.retry import transport_reason

REQUEST = httpx.Request("POST", "http://stack.test:8080/v1/runs?wait=5", content=b"{}")


def head(text: bytes) -> http_wire.Head:
    return parse_head(text, REQUEST)


def test_a_request_head_is_the_request_line_host_and_length() -> None:
    sent = request_head(REQUEST, 2)
    assert sent == (
        b"POST /v1/runs?wait=5 HTTP/1.1\r\nHost: stack.test:8080\r\nContent-Length: 2\r\n\r\n"
    )


def test_a_header_value_with_a_line_break_is_never_sent() -> None:
    """A key pasted with a newline cannot write a header of its own."""
    request = httpx.Request("GET", "http://stack.test/", headers={"Authorization": "Bearer a"})
    request.headers["Authorization"] = "Bearer a\r\nX-Evil: 1"
    with pytest.raises(httpx.LocalProtocolError):
        request_head(request, 0)


def test_a_response_head_keeps_its_headers_in_order() -> None:
    parsed = head(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-A:  b \r\n\r\n")
    assert (parsed.status, parsed.phrase, parsed.version) == (200, b"OK", b"HTTP/1.1")
    assert parsed.headers == [(b"Content-Type", b"application/json"), (b"X-A", b"b")]


@pytest.mark.parametrize(
    "text",
    [
        b"HTTP/2 200 OK\r\n\r\n",
        b"HTTP/1.1 20 OK\r\n\r\n",
        b"HTTP/1.1 2x0 OK\r\n\r\n",
        b"SPDY 200 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nName : value\r\n\r\n",  # space before the colon
        b"HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n",  # obsolete line folding
        b"HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n",  # a bare CR
        b"HTTP/1.1 200 OK\r\n",  # no blank line
    ],
)
def test_a_malformed_head_is_malformed_and_names_no_response_text(text: bytes) -> None:
    with pytest.raises(Malformed) as caught:
        head(text)
    assert transport_reason(caught.value) == "malformed response"
    assert b"value" not in str(caught.value).encode()


def frame(text: bytes, request: httpx.Request = REQUEST) -> Framing:
    return framing(head(text), request)


def test_content_length_frames_the_body_and_keeps_the_connection() -> None:
    assert frame(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n") == Framing(12, False, True)
    assert frame(b"HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\n\r\n") == Framing(3, False, True)


def test_chunks_frame_the_body_but_not_beside_a_length() -> None:
    assert frame(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") == Framing(
        None, True, True
    )
    both = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
    assert frame(both) == Framing(None, True, False)  # read, then never reused


def test_no_length_reads_to_the_end_and_close_or_http_1_0_is_not_reused() -> None:
    assert frame(b"HTTP/1.1 200 OK\r\n\r\n") == Framing(None, False, False)
    closing = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\n"
    assert frame(closing) == Framing(1, False, False)
    assert frame(b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\n") == Framing(1, False, False)
    kept = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\n"
    assert frame(kept) == Framing(1, False, True)


def test_no_body_after_204_304_or_head() -> None:
    assert frame(b"HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n").length == 0
    assert frame(b"HTTP/1.1 304 Not Modified\r\n\r\n").length == 0
    ask = httpx.Request("HEAD", "http://stack.test/")
    assert frame(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", ask).length == 0


@pytest.mark.parametrize(
    "headers",
    [
        b"Content-Length: 3\r\nContent-Length: 4\r\n",
        b"Content-Length: -1\r\n",
        b"Content-Length: 0x10\r\n",
        b"Content-Length: 1234567890123456789\r\n",
        b"Transfer-Encoding: gzip, chunked\r\n",
        b"Transfer-Encoding: identity\r\n",
    ],
)
def test_lengths_and_codings_we_cannot_trust_are_malformed(headers: bytes) -> None:
    with pytest.raises(Malformed):
        frame(b"HTTP/1.1 200 OK\r\n" + headers + b"\r\n")


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read() -> None:
    text = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (http_wire.BODY_LIMIT + 1)
    with pytest.raises(TooLarge) as caught:
        frame(text)
    assert transport_reason(caught.value) == "response too large"


def test_chunk_sizes_are_hex_with_extensions_ignored() -> None:
    assert chunk_size(b"1a\r\n", REQUEST) == 26
    assert chunk_size(b"0;name=value\r\n", REQUEST) == 0
    for bad in (b"\r\n", b"-1\r\n", b"zz\r\n", b"1" * 16 + b"\r\n", b"0x1a\r\n"):
        with pytest.raises(Malformed):
            chunk_size(bad, REQUEST)
