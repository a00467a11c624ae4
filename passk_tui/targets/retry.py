"""What both HTTP targets share about failing and trying again: backoff, Retry-After, reasons.

Failures through the aiohttp transport arrive coarsely mapped: a refused
connection, a server that closed the connection and a reset all arrive as
``httpx.ConnectTimeout``; a response cut short as ``httpx.ReadError``; a read
timeout as ``httpx.ReadTimeout``; a malformed response as a raw
``aiohttp.ClientResponseError`` (whose repr carries the request headers, key
included). So failures are classified by their cause and every reason is
written here, never copied from an exception.
"""

from __future__ import annotations

import email.utils
import errno
import random
import time

import aiohttp
import httpx

#: What a request can raise when no response came back.
TRANSPORT_ERRORS = (httpx.TransportError, aiohttp.ClientError, OSError, TimeoutError)


class Backoff:
    """Exponential backoff with full jitter, never shorter than the server's Retry-After."""

    __slots__ = ("base", "cap", "failures")

    def __init__(self, base: float = 0.05, cap: float = 5.0) -> None:
        self.base = base
        self.cap = cap
        self.failures = 0

    def next(self, retry_after: float | None = None) -> float:
        """Seconds to wait before the next resend: uniform(0, min(cap, base * 2**failures))."""
        ceiling = min(self.cap, self.base * (2**self.failures))
        self.failures += 1
        delay = random.uniform(0.0, ceiling)
        return max(delay, retry_after) if retry_after is not None else delay


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, or ``Retry-After`` seconds or date."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def transport_reason(exc: BaseException) -> str:
    """A short, key-free description of a transport failure, from its aiohttp cause."""
    cause = exc.__cause__ if isinstance(exc, httpx.HTTPError) else exc
    if isinstance(cause, aiohttp.ClientConnectorDNSError):
        return "host not found"
    if isinstance(cause, aiohttp.ClientSSLError):
        return "TLS handshake failed"
    if isinstance(cause, aiohttp.ClientConnectorError):
        refused = getattr(cause.os_error, "errno", None) == errno.ECONNREFUSED
        return "connection refused" if refused else "cannot connect"
    if isinstance(cause, aiohttp.ConnectionTimeoutError):
        return "connect timed out"
    if isinstance(cause, aiohttp.ServerDisconnectedError):
        return "connection lost"
    if isinstance(cause, aiohttp.ClientPayloadError):
        return "response cut short"
    if isinstance(cause, aiohttp.ClientOSError):
        return "connection reset"
    if isinstance(cause, aiohttp.ClientResponseError):
        return "malformed response"
    if isinstance(exc, httpx.ReadTimeout | aiohttp.SocketTimeoutError | TimeoutError):
        return "read timed out"
    if isinstance(exc, httpx.ConnectError):
        return "cannot connect"
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "connection lost"
    return "connection error"
