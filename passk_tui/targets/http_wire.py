"""HTTP/1.1 as bytes on a connection: a request's head, a response's head, how its body ends.

Pure functions over bytes, so that what a hostile endpoint can send is tested
without a socket. Every failure is one of the classes below: an httpx error (the
targets catch httpx's classes) that carries a short reason written here, never
text from the response, so no reason can carry what an endpoint echoed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import httpx

#: The most a response's status line and headers may take; more is a malformed response.
HEAD_LIMIT = 64 * 1024
#: The most a response's body may take: an endpoint cannot fill the memory of the run.
BODY_LIMIT = 64 * 1024 * 1024
#: Interim (1xx) responses skipped before the real one; more is a malformed response.
INTERIM_LIMIT = 8


class Reasoned:
    """A failure with a short, key-free reason, for ``retry.transport_reason``."""

    reason: ClassVar[str]


class HostNotFound(Reasoned, httpx.ConnectError):
    reason = "host not found"


class Refused(Reasoned, httpx.ConnectError):
    reason = "connection refused"


class CannotConnect(Reasoned, httpx.ConnectError):
    reason = "cannot connect"


class TlsFailed(Reasoned, httpx.ConnectError):
    reason = "TLS handshake failed"


class ConnectTimedOut(Reasoned, httpx.ConnectTimeout):
    reason = "connect timed out"


class PoolTimedOut(Reasoned, httpx.PoolTimeout):
    reason = "timed out"


class WriteTimedOut(Reasoned, httpx.WriteTimeout):
    reason = "write timed out"


class ReadTimedOut(Reasoned, httpx.ReadTimeout):
    reason = "read timed out"


class Reset(Reasoned, httpx.ReadError):
    reason = "connection reset"


class Lost(Reasoned, httpx.RemoteProtocolError):
    reason = "connection lost"


class CutShort(Reasoned, httpx.RemoteProtocolError):
    reason = "response cut short"


class Malformed(Reasoned, httpx.RemoteProtocolError):
    reason = "malformed response"


class TooLarge(Reasoned, httpx.RemoteProtocolError):
    reason = "response too large"


def request_head(
    request: httpx.Request, body_length: int, via: tuple[bytes, list[bytes]] | None = None
) -> bytes:
    """The request line and headers. A header value with a line break is refused: it
    would let a value (a key pasted with a newline, say) write headers of its own.
    ``via``: the target and header lines a forwarding proxy is sent instead of the path."""
    path = request.url.raw_path if via is None else via[0]
    lines = [b"%s %s HTTP/1.1" % (request.method.encode("ascii"), path)]
    if via is not None:
        lines += via[1]
    has_length = False
    for name, value in request.headers.raw:
        if b"\r" in value or b"\n" in value or b"\r" in name or b"\n" in name:
            raise httpx.LocalProtocolError("a request header holds a line break", request=request)
        has_length = has_length or name.lower() == b"content-length"
        lines.append(name + b": " + value)
    if body_length and not has_length:
        lines.append(b"Content-Length: %d" % body_length)
    return b"\r\n".join(lines) + b"\r\n\r\n"


@dataclass(frozen=True, slots=True)
class Head:
    """A parsed response head: status, reason phrase, headers in order, HTTP version."""

    status: int
    phrase: bytes
    headers: list[tuple[bytes, bytes]]
    version: bytes


def parse_head(data: bytes, request: httpx.Request) -> Head:
    """``data`` (status line and headers, the blank line included) as a Head, or Malformed."""
    lines = data[:-4].split(b"\r\n") if data.endswith(b"\r\n\r\n") else []
    if not lines:
        raise Malformed("no response head", request=request)
    version, _, rest = lines[0].partition(b" ")
    code, _, phrase = rest.partition(b" ")
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise Malformed("bad status line", request=request)
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        # No space before the colon, no folded (obsolete) continuation lines, no bare CR.
        if not colon or not name or name != name.strip(b" \t") or b"\r" in line:
            raise Malformed("bad header line", request=request)
        headers.append((name, value.strip(b" \t")))
    return Head(int(code), phrase, headers, version)


@dataclass(frozen=True, slots=True)
class Framing:
    """How the body ends: ``length`` bytes, chunks, or the connection's end; whether
    the connection may carry another request afterwards; the content codings the body
    was sent under (``http_decoding`` undoes them)."""

    length: int | None
    chunked: bool
    reusable: bool
    codings: tuple[bytes, ...] = ()


def framing(head: Head, request: httpx.Request) -> Framing:
    """The body's framing by RFC 9112 section 6.3, for a response to ``request``."""
    codings: list[bytes] = []
    content: list[bytes] = []
    lengths: set[bytes] = set()
    close = head.version == b"HTTP/1.0"
    for name, value in head.headers:
        lower = name.lower()
        if lower == b"transfer-encoding":
            codings += [c.strip().lower() for c in value.split(b",")]
        elif lower == b"content-encoding":
            content += content_codings(value)
        elif lower == b"content-length":
            lengths |= {v.strip() for v in value.split(b",")}
        elif lower == b"connection":
            tokens = {t.strip().lower() for t in value.split(b",")}
            close = b"close" in tokens or (close and b"keep-alive" not in tokens)
    if request.method == "HEAD" or head.status in (204, 304):
        return Framing(0, chunked=False, reusable=not close)
    if codings:
        if codings != [b"chunked"]:  # gzip as a transfer coding: not asked for, not read
            raise Malformed("unsupported transfer coding", request=request)
        # A length beside chunks is a smuggling attempt's shape: read, then do not reuse.
        return Framing(None, True, not lengths and not close, tuple(content))
    if lengths:
        if len(lengths) != 1:
            raise Malformed("conflicting Content-Length", request=request)
        text = lengths.pop()
        if not text.isdigit() or len(text) > 18:
            raise Malformed("bad Content-Length", request=request)
        length = int(text)
        if length > BODY_LIMIT:
            raise TooLarge(f"body of {length} bytes", request=request)
        return Framing(length, False, not close, tuple(content))
    return Framing(None, False, False, tuple(content))


def content_codings(value: bytes) -> list[bytes]:
    """The codings a ``Content-Encoding`` value lists, identity left out."""
    listed = (c.strip().lower() for c in value.split(b","))
    return [c for c in listed if c and c != b"identity"]


def chunk_size(line: bytes, request: httpx.Request) -> int:
    """A chunk's size from its size line (extensions ignored), or Malformed."""
    text = line.rstrip(b"\r\n").partition(b";")[0].strip(b" \t")
    if not text or len(text) > 15 or text.strip(b"0123456789abcdefABCDEF"):
        raise Malformed("bad chunk size", request=request)
    return int(text, 16)
