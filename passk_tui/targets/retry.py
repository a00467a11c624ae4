"""What both HTTP targets share about failing and trying again: backoff, Retry-After, reasons.

Every failure of our transport carries a short reason it wrote itself
(``http_wire``). Failures from elsewhere (an environment proxy's transport,
which is httpx's own, or the OS) are classified by class here. No reason is
ever copied from an exception's text, which may carry what an endpoint sent.
"""

from __future__ import annotations

import email.utils
import random
import time

import httpx

from passk_tui.targets.http_wire import Reasoned

#: What a request can raise when no response came back.
TRANSPORT_ERRORS = (httpx.TransportError, OSError, TimeoutError)


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
    """A short, key-free description of a transport failure."""
    if isinstance(exc, Reasoned):
        return exc.reason
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect timed out"
    if isinstance(exc, httpx.ReadTimeout | TimeoutError):
        return "read timed out"
    if isinstance(exc, httpx.ConnectError):
        return "cannot connect"
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "connection lost"
    if isinstance(exc, ConnectionResetError):
        return "connection reset"
    return "connection error"
