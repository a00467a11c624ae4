"""Quitting the app: from the keyboard (asked first mid-run), on SIGTERM or SIGHUP, or when
the terminal closes; and what the process then exits with and says."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time

from passk_tui.core.errors import RunError
from passk_tui.core.run.stop_signals import Stop, StopSignals
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.tui.app.app_exit import exit_messages, exit_status
from passk_tui.tui.app.run_control import RunControl
from passk_tui.tui.dialogs.confirm import ConfirmScreen

#: Seconds to wait for the Runs in flight to be cancelled when quitting mid-run.
QUIT_GRACE = 10.0


class Quitting(RunControl):
    """How the app stops: the Runs in flight cancelled first, then the exit status and lines."""

    def __init__(self) -> None:
        super().__init__()
        #: The stop signals received (SIGTERM, SIGHUP; the terminal closing counts as SIGHUP).
        self._stops = StopSignals()

    def _take_stop_signals(self) -> None:
        """SIGTERM and SIGHUP quit as ``_stop_for_signal`` says, on the app's loop."""
        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGHUP"):  # Ctrl-C is a key to Textual, not a signal
            signum = getattr(signal, name, None)
            if signum is None:  # no such signal here (Windows has no SIGHUP)
                continue
            # Not where the loop cannot take them (another thread, Windows): the default stays.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, TypeError):
                loop.add_signal_handler(signum, self._stop_for_signal, signum)

    async def action_quit(self) -> None:
        """Quit; mid-run, ask first, then cancel the Runs in flight before leaving."""
        if not self.running:
            self.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._quit_when_stopped = True
                self.cancel_evaluation()
                self.set_timer(QUIT_GRACE, self.exit)

        await self.push_screen(
            ConfirmScreen(
                "Quit while the evaluation runs?\n\nThe Runs in flight are cancelled first; "
                "the attempts that finished are kept.",
                yes="Quit",
                no="Keep running",
            ),
            answered,
        )

    def _stop_for_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP: quit as asked from the keyboard (the Runs in flight withdrawn and
        cancelled first), so the terminal is restored; a second stop quits at once, the same
        signal again within half a second being the first delivered twice (``StopSignals``)."""
        stop = self._stops.receive(signum, time.monotonic())
        if stop is Stop.REPEAT:
            return
        if stop is Stop.NOW or not self.running:
            self.exit()
            return
        self._quit_when_stopped = True
        self.cancel_evaluation()
        self.set_timer(QUIT_GRACE, self.exit)

    def on_terminal_closed(self) -> None:
        """``terminal.TerminalClosed`` (by name: that module is POSIX-only): the terminal went
        away, so stop as SIGHUP does, unless a stop is already under way (the kernel's SIGHUP
        came first, or ours: a closed terminal is no second stop)."""
        if self.signalled is None:
            self._stop_for_signal(signal.SIGHUP)

    @property
    def signalled(self) -> int | None:
        """The first stop signal, if one ended the app: the exit status is 128 + it."""
        return self._stops.first

    @property
    def crash(self) -> RunError | None:
        """The exception that ended the app, if one did, as a could-not-run (exit 3) in one line.

        Textual prints its traceback and keeps the first such exception; without this the
        process exited 0 (or by the gate) as if the app had closed normally.
        """
        error = self._exception
        if error is None:
            return None
        text = " ".join(str(error).split())
        return RunError(
            terminal_safe(f"the app stopped on an error: {type(error).__name__}: {text}")
        )

    @property
    def exit_status(self) -> int:
        """The process's exit status (``app_exit.exit_status``)."""
        status = exit_status(self.signalled, self.crash or self.failure, self.view)
        if self.matrix is not None and not (self.signalled or self.crash or self.failure):
            return self.matrix.exit_status(status)
        return self.pair.exit_status(status) if self.pair else status

    def exit_messages(self) -> list[str]:
        """What to say on stderr once the terminal is back (``app_exit.exit_messages``)."""
        messages = exit_messages(self.crash or self.failure, self.view)
        if self.matrix is not None and not (self.crash or self.failure):
            return self.matrix.exit_messages(messages)
        if self.pair is None or self.crash or self.failure:
            return messages
        return self.pair.exit_messages(messages)
