"""An archive's conversations read in a second process, while this one maps and stores.

Reading a sample's conversation (the head of its zstd member that holds its messages, the
transcript written out as the store keeps it) is a large part of the CPU of importing an
inspect log with transcripts: 1.2 of 4.1 s for 50,000 samples (``bench/imports``). The
outcomes come from the summaries, so the conversations can be read on another core at the
same time, and their texts (all the store needs of them) written last in the same transaction.

The child is forked: it has every module already loaded and the archive already open (each
batch's members are read with ``pread``, at once when they lie together, so the two
processes never share a file offset). It reads the
requests (member, input, answer) as they come and keeps the texts; once told the requests are
over it sends the texts in the order asked. Neither side ever waits on a full pipe for the
other. Once this process has stored the outcomes it would only wait for the child: it reads
the last batches itself meanwhile, each batch claimed under a shared lock by one process
only (the child from the first, this one from the last), so the two meet where they meet. A damaged member ends the child's work: its answer is the error line, raised here as
BadLog. The child ignores Ctrl-C (the parent decides) and exits when its pipe closes, so a
parent killed at any moment leaves no child behind.
"""

from __future__ import annotations

import os
import queue
import signal
import threading
import zipfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from passk_tui.imports.conversation import MORE, messages_in, transcript_text
from passk_tui.imports.model import BadLog
from passk_tui.imports.zip_members import Archive

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

#: Requests and answers travel in batches: one pickle per few hundred samples.
BATCH = 256
#: The first head of a sample member read for its messages: an inspect sample's end within
#: it unless its conversation is long (its events, after them, are most of its bytes).
HEAD = 4096
#: Marks the end of the requests (parent to child) and of the answers (child to parent).
_END = None
#: The parent's first claimed batch until it claims one: past any log's last.
_UNCLAIMED = 1 << 62


class TranscriptsAside:
    """The child reading ``archive``'s sample members into transcript texts."""

    def __init__(self, archive: Archive) -> None:
        import multiprocessing  # only when conversations are read: its import costs 30 ms

        self.path = archive.path
        self._archive = archive.again()  # read here too, after the log itself is closed
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        # The first batch the child has not claimed, and the first this process has.
        self._claims: Any = context.Array("q", [0, _UNCLAIMED])
        self._process = context.Process(
            target=_serve,
            args=(archive, child, self._conn, self._claims),
            daemon=True,
            name="passk-aside",
        )
        try:
            _start_holding_ctrl_c(self._process)
        except KeyboardInterrupt:  # held over the fork: the child is there, and goes now
            child.close()
            self.close()
            raise
        child.close()
        self._batch: list[tuple[str, Any, Any]] = []
        self._sent: list[list[tuple[str, Any, Any]]] = []
        self._asked = 0

    def ask(self, member: str, given: Any, answer: Any) -> None:
        """The transcript of ``member``'s messages (None when it has no such member, or when
        they say no more than ``given`` and ``answer``), answered later, in order."""
        self._batch.append((member, given, answer))
        self._asked += 1
        if len(self._batch) >= BATCH:
            self._send()

    def answers(self) -> Iterator[str | None]:
        """Each asked transcript's text, in the order asked; BadLog for a damaged member."""
        self._send()
        mine, failed = self._read_last()
        self._conn.send(_END)
        told = 0
        while True:
            try:
                batch = self._conn.recv()
            except EOFError:
                raise BadLog(f"{self.path}: the conversations' reader ended early") from None
            if isinstance(batch, str):
                raise BadLog(batch)
            if batch is _END:
                break
            told += len(batch)
            yield from batch
        if failed is not None:  # the first damaged member: none was in the child's batches
            raise BadLog(failed)
        told += len(mine)
        yield from mine
        if told != self._asked:  # never a transcript put beside another attempt
            raise BadLog(f"{self.path}: {self._asked} conversations asked, {told} read")
        self.close()

    def close(self) -> None:
        """The child ended (at once when its answers were not all drawn) and its pipe closed."""
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._conn.close()
        self._archive.close()

    def _send(self) -> None:
        if self._batch:
            self._conn.send(self._batch)
            self._sent.append(self._batch)
            self._batch = []

    def _read_last(self) -> tuple[list[str | None], str | None]:
        """The texts of the last batches, read here while the child reads the first ones,
        in the order asked; and the error line of the first damaged member among them."""
        claims = self._claims
        with claims.get_lock():
            claims[1] = len(self._sent)
        taken: list[list[str | None]] = []
        failed: str | None = None
        while True:
            with claims.get_lock():
                if claims[1] <= claims[0]:
                    break
                claims[1] -= 1
                index = claims[1]
            texts: list[str | None] = []
            failed = _read(self._archive, self._sent[index], texts) or failed
            taken.append(texts)
        return [text for texts in reversed(taken) for text in texts], failed


def _start_holding_ctrl_c(process: BaseProcess) -> None:
    """``process.start()``, a Ctrl-C that comes meanwhile raised once the child is made.

    Forking runs Python's at-fork handlers (logging's, among others) in this process, and a
    KeyboardInterrupt raised inside one is printed as "Exception ignored" and dropped: the
    import went on to its end and exit 0 (seen once in CI). Here the signal is only noted
    while the fork runs. Only where Ctrl-C raises (Python's own handler, in the main thread,
    the only one that may set handlers) is there anything to hold.
    """
    default = signal.default_int_handler
    if signal.getsignal(signal.SIGINT) is not default or threading.current_thread() is not (
        threading.main_thread()
    ):
        process.start()
        return
    held: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _: held.append(signum))
    try:
        process.start()
    finally:
        signal.signal(signal.SIGINT, default)
    if held:
        raise KeyboardInterrupt


def _serve(archive: Archive, conn: Connection, parents: Connection, claims: Any) -> None:
    """The child: each batch it claims answered into a list, the list sent once the requests
    end. A thread takes the requests off the pipe as they come, so the parent never waits on
    a full pipe while a member is read."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parents.close()  # only the parent's end: when the parent dies, recv sees the end
    requests: queue.SimpleQueue[list[tuple[str, Any, Any]] | None] = queue.SimpleQueue()
    threading.Thread(target=_take, args=(conn, requests), daemon=True).start()
    texts: list[str | None] = []
    failed: str | None = None
    index = 0
    while (batch := requests.get()) is not _END:
        with claims.get_lock():
            mine = index < claims[1]
            if mine:
                claims[0] = index + 1
        index += 1
        if mine and failed is None:
            failed = _read(archive, batch, texts)
    try:
        if failed is not None:
            conn.send(failed)
            return
        for start in range(0, len(texts), BATCH):
            conn.send(texts[start : start + BATCH])
        conn.send(_END)
    except (EOFError, OSError):
        return  # the parent has gone: nothing to answer


def _take(conn: Connection, requests: queue.SimpleQueue[Any]) -> None:
    """Each batch of requests off the pipe into ``requests``; the end when the parent says
    so, or when it has gone (then the child exits without answering)."""
    try:
        while (batch := conn.recv()) is not _END:
            requests.put(batch)
    except (EOFError, OSError):
        os._exit(0)  # the parent has gone: nothing to answer, nobody to answer to
    requests.put(_END)


def _read(
    archive: Archive, batch: list[tuple[str, Any, Any]], texts: list[str | None]
) -> str | None:
    """The batch's texts added to ``texts``; the error line of a damaged member, else None."""
    names = archive.names()
    try:
        archive.gather(member for member, _, _ in batch)
        for member, given, answer in batch:
            if member not in names:
                texts.append(None)
                continue
            try:
                texts.append(transcript_text(_messages(archive, member), given, answer))
            except (zipfile.BadZipFile, ValueError, OSError, RecursionError) as exc:
                return f"{archive.path}: {member}: {exc}"
    finally:
        archive.gather(())
    return None


def _messages(archive: Archive, member: str) -> Any:
    """A sample member's messages, decompressed only as far as they go: a head of it, four
    times as long until they end in one (``Archive.head``, ``messages_in``)."""
    size = HEAD
    while True:
        head, whole = archive.head(member, size)
        found = messages_in(head, whole)
        if found is not MORE:
            return found
        size *= 4
