"""A stack and an OpenAI endpoint whose answers are compression bombs, or corrupt.

Every GET answers as a healthy server would (the stack's agent ``demo`` with
version 1, the endpoint's model list), so a run gets past its checks; every POST
(a Run, a chat completion) answers 200 with a body sent under ``Content-Encoding``
that inflates to ``inflated`` bytes of zeros (about a thousandth of that on the
wire), or, with ``corrupt``, a gzip body whose deflate stream is broken.

``python -m tests.support.bomb_server --coding gzip --inflated-mib 512`` prints its
URL and serves until stopped: the attack of issue 30 from outside.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import zlib

from tests.support.loopback import LoopbackServer
from tests.support.processes import until_stopped

AGENT = b'{"id": "agt_bomb", "name": "demo", "versions": [1], "latest": 1}'
MODELS = b'{"object": "list", "data": []}'


def bomb(coding: str, inflated: int) -> bytes:
    """``inflated`` zero bytes compressed by ``coding`` (gzip or deflate), built a MiB at a time."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31 if coding == "gzip" else 15)
    block = bytes(1024 * 1024)
    parts = [compressor.compress(block) for _ in range(inflated // len(block))]
    parts.append(compressor.compress(bytes(inflated % len(block))))
    return b"".join(parts) + compressor.flush()


def corrupt_gzip(payload: bytes) -> bytes:
    """``payload`` gzipped, with its deflate stream broken past the header (an invalid block)."""
    packed = bytearray(gzip.compress(payload))
    packed[10] = 0xFF  # the first block's header: type 3, which deflate does not have
    return bytes(packed)


class BombServer(LoopbackServer):
    """Serves on 127.0.0.1 in the caller's loop; ``await start()`` gives its URL."""

    def __init__(self, coding: str = "gzip", inflated: int = 0, corrupt: bytes | None = None):
        super().__init__()
        self.coding = coding
        self.body = corrupt_gzip(corrupt) if corrupt is not None else bomb(coding, inflated)
        self.posts = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while head := await reader.readuntil(b"\r\n\r\n"):
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            await reader.readexactly(length)
            writer.write(self._answer(head.split(b" ", 2)))
            await writer.drain()

    def _answer(self, line: list[bytes]) -> bytes:
        method, path = line[0], line[1]
        if method == b"GET":
            body = MODELS if path.endswith(b"/models") else AGENT
            return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        self.posts += 1
        coding = b"gzip" if self.coding == "gzip" else b"deflate"
        return (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: %s\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (coding, len(self.body), self.body)
        )


async def _main(coding: str, inflated: int) -> None:
    server = BombServer(coding, inflated)
    print(await server.start(), flush=True)
    print(json.dumps({"on_the_wire": len(server.body)}), flush=True)
    await until_stopped()
    await server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--coding", choices=("gzip", "deflate"), default="gzip")
    parser.add_argument("--inflated-mib", type=int, default=512)
    args = parser.parse_args()
    asyncio.run(_main(args.coding, args.inflated_mib * 1024 * 1024))
