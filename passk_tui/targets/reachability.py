"""Telling a stack that went away mid-run from one that is only slow or briefly failing.

A dead stack refuses every connection; before this watch, each attempt in flight
then retried until its own deadline and was stored as errored for good. The
watch sees every request of the target: once ``GONE_AFTER_REQUESTS`` in a row,
across all attempts, could not connect, the first of them at least
``GONE_AFTER_S`` ago, with no answer from the stack in between, the stack is
taken for gone and the evaluation stops as for a refused key (exit 3), leaving
what is in flight unrecorded for ``--resume``. A stack that restarts within the
grace, or answers anything (even an error), is not gone.

A frozen stack (stopped, or wedged: the kernel still accepts connections, nothing
answers them) refuses nothing; it is told by the time of the last answer to any
request. When a request went unanswered for its long-poll window plus a margin and
no other request of any attempt was answered since it was sent, the stack has
stopped answering: the evaluation stops the same way. One slow Turn is not that:
its long polls are answered (the Turn still running), and so are the other attempts'.
Nor is a slow answer: every head and part of a body the stack sends counts as an
answer (``answered``), however slowly the rest trickles in.
"""

from __future__ import annotations

from passk_tui.core.errors import RunError

GONE_AFTER_REQUESTS = 3
GONE_AFTER_S = 2.0

#: Transport failures that mean no connection could be made (the stack is down or gone).
NO_CONNECTION = frozenset(
    {"connection refused", "host not found", "cannot connect", "connect timed out"}
)


class ReachabilityWatch:
    """The streak of requests that could not connect, shared by every attempt of a target."""

    __slots__ = ("_failing_since", "_failures", "_last", "_last_answer")

    def __init__(self) -> None:
        self._failing_since: float | None = None
        self._failures = 0
        self._last = ""
        self._last_answer = float("-inf")

    def answered(self, now: float) -> None:
        """The stack answered a request (whatever it said) at ``now``: it is there."""
        self._failing_since, self._failures = None, 0
        self._last_answer = now

    def answered_since(self, when: float) -> bool:
        """Whether the stack answered any request after ``when``."""
        return self._last_answer > when

    def no_answer(self, reason: str, now: float) -> None:
        """A request got no answer for ``reason``; only a failure to connect counts."""
        if reason not in NO_CONNECTION:
            return
        if self._failing_since is None:
            self._failing_since = now
        self._failures += 1
        self._last = reason

    def gone(self, now: float, where: str) -> RunError | None:
        """The RunError to stop with when the stack at ``where`` looks gone, else None."""
        since = self._failing_since
        if since is None or self._failures < GONE_AFTER_REQUESTS or now - since < GONE_AFTER_S:
            return None
        return RunError(
            f"stack at {where} unreachable mid-run: {self._last} ({self._failures} requests "
            f"in a row over {now - since:.0f} s); the attempts that finished are kept"
        )

    def stopped_answering(self, sent: float, now: float, where: str) -> RunError | None:
        """The RunError to stop with when a request sent at ``sent`` went unanswered for its
        window plus the margin and so did every other since: no answer came after ``sent``."""
        if self.answered_since(sent):
            return None
        quiet = now - (sent if self._last_answer == float("-inf") else self._last_answer)
        return RunError(
            f"stack at {where} stopped answering: no request answered for {quiet:.0f} s "
            "(connections accepted, nothing answered); the attempts that finished are kept"
        )
