"""A response body's content codings undone inside the body limit, a step at a time.

An endpoint may compress its answer, asked or not, and a body of a thousandth of the
limit on the wire can inflate to a thousand times it. httpx inflates a whole body in
one call, unbounded, on the event loop: half a MB of gzip became 512 MiB and held the
loop for half a minute. Here the limit holds after decoding (more is ``TooLarge``, as
a body too large on the wire), every step inflates at most ``STEP`` bytes from at
most ``_IN_STEP`` bytes and then lets the loop run, so a deadline cancels decoding
like any read. A body that does not inflate (corrupt, cut short, a coding we never
asked for) is ``Malformed``: a malformed answer, asked again as any other.
"""

from __future__ import annotations

import asyncio
import zlib

import httpx

from passk_tui.targets import http_wire
from passk_tui.targets.http_wire import Malformed, TooLarge

#: Most bytes inflated between two turns of the event loop (a few milliseconds of work).
STEP = 1024 * 1024
#: Most compressed bytes fed at once: empty blocks inflate to nothing, yet take time.
_IN_STEP = 64 * 1024
#: zlib's window bits per coding: gzip's header and trailer, or zlib's (RFC 9110 8.4.1).
_WBITS = {b"gzip": 31, b"x-gzip": 31, b"deflate": 15}
#: Most codings one body may be sent under: each is a step of work and of memory.
MAX_CODINGS = 2
_GZIP_MAGIC = b"\x1f\x8b"


async def decoded(body: bytes, applied: tuple[bytes, ...], request: httpx.Request) -> bytes:
    """``body`` with the codings ``applied`` (in the order they were applied) undone."""
    if len(applied) > MAX_CODINGS:
        raise Malformed("too many content codings", request=request)
    for coding in reversed(applied):
        wbits = _WBITS.get(coding)
        if wbits is None:
            raise Malformed("a content coding not asked for", request=request)
        try:
            body = await _inflated(body, wbits, request)
        except zlib.error:
            if coding != b"deflate":
                raise Malformed("corrupt compressed body", request=request) from None
            # Some servers send raw deflate as "deflate": one more try without zlib's header.
            try:
                body = await _inflated(body, -15, request)
            except zlib.error:
                raise Malformed("corrupt compressed body", request=request) from None
    return body


async def _inflated(data: bytes, wbits: int, request: httpx.Request) -> bytes:
    """``data`` inflated by zlib with ``wbits``; gzip members one after another are one body."""
    parts: list[bytes] = []
    size = 0
    view = memoryview(data)
    done = 0
    inflater = zlib.decompressobj(wbits)
    tail: bytes | memoryview = b""
    while True:
        if not tail and done < len(view):
            tail = view[done : done + _IN_STEP]
            done += len(tail)
        piece = inflater.decompress(tail, STEP)
        tail = inflater.unconsumed_tail
        size += len(piece)
        if size > http_wire.BODY_LIMIT:
            raise TooLarge("body over the limit once decoded", request=request)
        parts.append(piece)
        if inflater.eof:
            rest = inflater.unused_data + view[done:]
            if wbits != 31 or not rest.startswith(_GZIP_MAGIC):
                return b"".join(parts)  # what follows the stream is ignored, as httpx does
            view, done, tail = memoryview(rest), 0, b""
            inflater = zlib.decompressobj(wbits)
        elif not piece and not tail and done >= len(view):
            raise Malformed("compressed body cut short", request=request)
        await asyncio.sleep(0)  # a step done: the loop (and a deadline) runs
