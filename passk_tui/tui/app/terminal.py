"""The app's terminal driver: a terminal that closes mid-run stops the app as SIGHUP does.

When the terminal goes away (an ssh drop, a closed tab, the tmux server killed),
Textual's ``LinuxDriver`` hangs the app for good: its writer thread dies of EIO,
its queue of 30 writes fills, and the next write (the shutdown's own, to restore
the terminal) blocks the app's loop forever; the SIGCONT the kernel sends with
SIGHUP also restarts application mode on the dead terminal. Only kill -9 ended
it, with the Runs in flight and the local agents' processes left running.

This driver notices the terminal gone (a write or read fails, SIGCONT or a look
every half second finds it hung up), points the process's terminal descriptors at /dev/null (output)
and at a pipe nobody writes (input), so that every later write succeeds and the
input thread idles, and tells the app with ``TerminalClosed``: the app stops as
for SIGHUP (in-flight attempts withdrawn, agents killed, exit 129).
"""

from __future__ import annotations

import errno
import os
import termios
import threading
from typing import IO, TYPE_CHECKING, Any

from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App
    from textual.driver import Driver


#: Seconds between looks at whether the terminal is still there: an idle app writes nothing
#: that could fail, and its input thread reads end-of-file from a hung-up terminal forever.
WATCH_PERIOD = 0.5


class TerminalClosed(Message):
    """The app's terminal is gone: stop as for SIGHUP."""


def driver_for(default: type[Driver]) -> type[Driver]:
    """``TerminalDriver`` where Textual would use a plain ``LinuxDriver``; else its choice
    (a web or test driver has no terminal to lose)."""
    return TerminalDriver if default is LinuxDriver else default


def hung_up(fd: int) -> bool:
    """Whether ``fd`` is a terminal that has hung up (every ioctl on it fails with EIO)."""
    try:
        termios.tcgetattr(fd)
    except termios.error as exc:
        return bool(exc.args) and exc.args[0] == errno.EIO
    return False


class _Output:
    """The driver's output file: a write or flush the dead terminal refuses is reported and
    dropped, instead of killing Textual's writer thread (whose full queue then blocks the app)."""

    def __init__(self, file: IO[str], closed: Callable[[], None]) -> None:
        self._file = file
        self._closed = closed

    def write(self, text: str) -> None:
        try:
            self._file.write(text)
        except OSError:
            self._closed()

    def flush(self) -> None:
        try:
            self._file.flush()
        except OSError:
            self._closed()

    def fileno(self) -> int:
        return self._file.fileno()


class TerminalDriver(LinuxDriver):
    """``LinuxDriver`` that survives its terminal closing and tells the app (``TerminalClosed``)."""

    def __init__(self, app: App[Any], **options: Any) -> None:
        super().__init__(app, **options)
        #: The descriptors on the terminal: the ones to point elsewhere once it is gone.
        self._on_terminal = [fd for fd in (0, 1, 2) if os.isatty(fd)]
        #: Held for good by the first report that the terminal closed: the rest do nothing.
        #: Never waited on, as a signal handler may report while a thread holds it.
        self._closed_once = threading.Lock()
        #: The write end of the pipe the input reads once the terminal is gone, kept open.
        self._silent_writer: int | None = None
        self._watching = False
        stream = self._file  # sys.__stderr__, None only in a process with no stderr at all
        assert stream is not None
        self._output = _Output(stream, self.terminal_closed)
        # Textual types _file as sys.__stderr__ is typed; its writer only writes and flushes.
        self._file = self._output  # type: ignore[assignment]

    def start_application_mode(self) -> None:
        """Take the terminal, and look every ``WATCH_PERIOD`` seconds whether it is still there."""
        super().start_application_mode()  # type: ignore[no-untyped-call]  # Textual's: unannotated
        if not self._watching:
            self._watching = True
            self._watch()

    def _watch(self) -> None:
        """On the app's loop: the terminal hung up is the terminal closed; else look again."""
        if self._closed_once.locked():
            return
        if hung_up(self._output.fileno()):
            self.terminal_closed()
            return
        self._loop.call_later(WATCH_PERIOD, self._watch)

    def run_input_thread(self) -> None:
        """Read keys until shutdown; a read the closed terminal fails ends the thread quietly."""
        try:
            super().run_input_thread()
        except OSError:
            self.terminal_closed()

    def resume_application_mode(self) -> None:
        """SIGCONT: after Ctrl-Z, take the terminal back; with the SIGHUP of a closed one, stop."""
        if self._closed_once.locked() or hung_up(self._output.fileno()):
            self.terminal_closed()
            return
        super().resume_application_mode()

    def terminal_closed(self) -> None:
        """The terminal is gone (from any thread, or a signal handler): detach, tell the app."""
        if not self._closed_once.acquire(blocking=False):
            return
        self._detach()
        self._loop.call_soon_threadsafe(self._app.post_message, TerminalClosed())

    def _detach(self) -> None:
        """Output to /dev/null, input from a pipe whose write end stays open (select waits, no
        EOF to spin on), so that the shutdown and the exit's last words go nowhere, quietly.

        The pipe does not block: a read the input thread had already chosen to make on the
        terminal fails at once (and ends the thread) instead of waiting forever.
        """
        devnull = os.open(os.devnull, os.O_WRONLY)
        quiet, self._silent_writer = os.pipe()
        os.set_blocking(quiet, False)
        for fd in self._on_terminal:
            os.dup2(quiet if fd == self.fileno else devnull, fd)
        os.close(devnull)
        os.close(quiet)
