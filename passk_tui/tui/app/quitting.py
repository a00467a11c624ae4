"""Quitting the app: from the keyboard (asked first mid-run), on SIGTERM or SIGHUP, or when
the terminal closes; the Runs in flight are cancelled first (``RunController.cancel_to_quit``)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from typing import TYPE_CHECKING, Any

from passk_tui.core.run.stop_signals import Stop, StopSignals
from passk_tui.tui.dialogs.confirm import ConfirmScreen

if TYPE_CHECKING:
    from textual.app import App

    from passk_tui.tui.app.run_controller import RunController

#: Seconds to wait for the Runs in flight to be cancelled when quitting mid-run.
QUIT_GRACE = 10.0


class Quitting:
    """How the app stops: at once when nothing runs, else the Runs in flight cancelled first
    and the app left once the run has ended (or ``QUIT_GRACE`` later)."""

    def __init__(self, app: App[Any], controller: RunController) -> None:
        self._app = app
        self._controller = controller
        #: The stop signals received (SIGTERM, SIGHUP; the terminal closing counts as SIGHUP).
        self._stops = StopSignals()

    @property
    def signalled(self) -> int | None:
        """The first stop signal, if one ended the app: the exit status is 128 + it."""
        return self._stops.first

    def take_stop_signals(self) -> None:
        """SIGTERM and SIGHUP quit as ``stop_for_signal`` says, on the app's loop."""
        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGHUP"):  # Ctrl-C is a key to Textual, not a signal
            signum = getattr(signal, name, None)
            if signum is None:  # no such signal here (Windows has no SIGHUP)
                continue
            # Not where the loop cannot take them (another thread, Windows): the default stays.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, TypeError):
                loop.add_signal_handler(signum, self.stop_for_signal, signum)

    async def asked(self) -> None:
        """The user asked to quit; mid-run, ask first, then cancel the Runs in flight before
        leaving."""
        if not self._controller.running:
            self._app.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._stop_run()

        await self._app.push_screen(
            ConfirmScreen(
                "Quit while the evaluation runs?\n\nThe Runs in flight are cancelled first; "
                "the attempts that finished are kept.",
                yes="Quit",
                no="Keep running",
            ),
            answered,
        )

    def say_how(self) -> None:
        """Say which key quits here (Ctrl+C does not: Textual's users press it by reflex)."""
        for key, active in self._app.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self._app.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return

    def stop_for_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP: quit as asked from the keyboard (the Runs in flight withdrawn and
        cancelled first), so the terminal is restored; a second stop quits at once, the same
        signal again within half a second being the first delivered twice (``StopSignals``)."""
        stop = self._stops.receive(signum, time.monotonic())
        if stop is Stop.REPEAT:
            return
        if stop is Stop.NOW or not self._controller.running:
            self._app.exit()
            return
        self._stop_run()

    def terminal_closed(self) -> None:
        """The terminal went away: stop as SIGHUP does, unless a stop is already under way
        (the kernel's SIGHUP came first, or ours: a closed terminal is no second stop)."""
        if self.signalled is None:
            self.stop_for_signal(signal.SIGHUP)

    def _stop_run(self) -> None:
        """Cancel the run, the app leaving at its end, or after ``QUIT_GRACE`` at the latest."""
        self._controller.cancel_to_quit()
        self._app.set_timer(QUIT_GRACE, self._app.exit)
