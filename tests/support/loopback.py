"""A raw asyncio server on 127.0.0.1 for the tests' hand-written peers (bomb stack, proxy)."""

from __future__ import annotations

import asyncio


class LoopbackServer:
    """Serves each connection with ``serve`` in the caller's loop; ``await start()`` gives its
    URL, ``await stop()`` closes the listener and ends the connections still served."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._connected, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in self._tasks:
                task.cancel()
            await self._server.wait_closed()

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._tasks.add(asyncio.current_task())  # type: ignore[arg-type]
        try:
            await self.serve(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass  # the client went
        finally:
            writer.close()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError
