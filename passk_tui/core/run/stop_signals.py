"""One stop however often it is delivered: what a stop signal means, for both faces.

``timeout(1)`` and CI runners send their stop to the process and again to its
process group, so one stop arrives twice within milliseconds; a terminal that
closes sends SIGHUP to the process and to its group too. Taken as "Ctrl-C twice",
that second copy would quit at once and leave the Runs in flight running on the
stack instead of cancelling them. So the same signal again within
``REPEAT_WINDOW`` seconds of the first is the same stop; a second stop later, or
a different signal, still means "stop now".
"""

from __future__ import annotations

from enum import Enum

#: Seconds after the first stop signal within which the same signal again is that stop repeated.
REPEAT_WINDOW = 0.5


class Stop(Enum):
    """What one delivered stop signal asks for."""

    #: The first stop: start nothing new, withdraw and cancel the attempts in flight.
    FIRST = "first"
    #: The first stop delivered again (to the process and to its group): nothing more to do.
    REPEAT = "repeat"
    #: A second stop: quit at once.
    NOW = "now"


class StopSignals:
    """The stop signals a run has received, each judged by its number and arrival time.

    Pure: the caller passes ``time.monotonic()``, so the rule is tested without sleeping.
    """

    def __init__(self, window: float = REPEAT_WINDOW) -> None:
        self.window = window
        #: The first stop signal's number (the exit status is 128 + it), None before any.
        self.first: int | None = None
        self._first_at = 0.0

    def receive(self, signum: int, now: float) -> Stop:
        """Judge signal ``signum`` arriving at monotonic time ``now``."""
        if self.first is None:
            self.first, self._first_at = signum, now
            return Stop.FIRST
        if signum == self.first and now - self._first_at <= self.window:
            return Stop.REPEAT
        return Stop.NOW
