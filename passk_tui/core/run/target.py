"""What the engine needs from a place where Runs happen (the stack, or a local agent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from passk_tui.core.attempt import Turn
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.run.attempt_keys import PlannedAttempt

#: Called by a target before it waits to resend: (why, seconds until the resend).
RetryNotice = Callable[[str, float], None]

#: The cancel message with which the engine ends an attempt whose Run must be left to end
#: on its own (the evaluation failed, or the user quit at once): a stack target then sends
#: no cancel, so that a resume replays the Run's real Turn under the same key.
LEAVE_RUNNING = "leave the Run running"


class Target(Protocol):
    """Runs one attempt at a time on one exact agent version; many at once under the pool.

    The engine owns deadlines and cancellation: it cancels the task running
    ``execute`` when the attempt's deadline passes or the user cancels. A target
    therefore retries for as long as it is let (backing off, calling
    ``notify`` before each wait) and, when cancelled, cleans up what it started
    (cancels the Run on the stack, kills and reaps the process) before
    re-raising ``CancelledError``; cancelled with the message ``LEAVE_RUNNING``,
    it sends the stack no cancel (a local process is still killed). Cancelled at its
    deadline, a target may raise RunError instead, when what ran out the time was not
    the Turn but the stack as a whole (it stopped answering): the attempt is then not
    timed out but left for a resume, and the evaluation stops.
    """

    definition: Definition
    """What this target runs, resolved and without secrets (``core.inputs.agent_definition``):
    stored with each evaluation so that a label in an editable file keeps its meaning."""

    async def prepare(self) -> None:
        """Check the agent and version (and the key) before any Run; raise RunError or InputError."""

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """Run one attempt and return its ended Turn. Raise RunError to stop the evaluation.

        ``deadline`` is on the event loop's clock (``loop.time()``): a target may
        use it to size long polls; the engine enforces it regardless.
        """
        ...

    async def aclose(self) -> None:
        """Release connections and processes."""
