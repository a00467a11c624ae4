"""Where a `judge` check finds its judge while one attempt is judged: the attempt's panel.

The engine opens a panel around each check it runs (``AttemptRunner._judge``) and the
check reads it from a context variable, so that a judge nested in `all`/`any` finds it
too and no other check kind's signature carries what only the judge needs. The panel
numbers the judge's Runs of the attempt, keeps the votes for the record, and asks the
``Judges`` (built where targets are made) for each vote.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from passk_tui.core.attempt import Vote


class Judged(Protocol):
    """The attempt being judged, as a panel needs it (``PlannedAttempt`` is one; named by its
    shape, since the planned attempt's module imports the checks)."""

    @property
    def key(self) -> str: ...
    @property
    def case_index(self) -> int: ...
    @property
    def attempt(self) -> int: ...
    @property
    def retake(self) -> int: ...


@dataclass(frozen=True, slots=True)
class JudgeName:
    """Which judge a check asks: an agent and its version (None: its newest)."""

    agent: str
    version: int | None


class Judges(Protocol):
    """The judge agents of an evaluation: one vote at a time, stored before it is returned."""

    async def prepare(self) -> None:
        """Check every judge before any Run; raise InputError or RunError."""

    async def aclose(self) -> None:
        """Release the judges' connections and processes."""

    async def vote(
        self, attempt: Judged, judge: JudgeName, prompt: str, digest: str, run: int
    ) -> Vote:
        """The vote of Run ``run`` (key ``<attempt key>/judge/<run>``) on ``prompt`` (whose
        sha256 is ``digest``): the stored one if it was asked this prompt before, else a new
        Run of ``judge``, kept in the store before it is returned. Never raises for
        the judge's own failure: that is a vote without a verdict, with its error."""
        ...


class Panel:
    """One attempt's judging: its input, its judges, the votes asked so far."""

    def __init__(self, attempt: Judged, case_input: Any, judges: Judges) -> None:
        self.attempt = attempt
        self.case_input = case_input
        self.judges = judges
        self.votes: list[Vote] = []

    async def ask(self, judge: JudgeName, prompt: str, digest: str) -> Vote:
        """The next Run of ``judge`` on this attempt, numbered after the ones before."""
        vote = await self.judges.vote(self.attempt, judge, prompt, digest, len(self.votes) + 1)
        self.votes.append(vote)
        return vote


_PANEL: ContextVar[Panel | None] = ContextVar("passk_judge_panel", default=None)


def current_panel() -> Panel | None:
    """The panel of the attempt being judged here; None outside judging (a check run alone)."""
    return _PANEL.get()


def open_panel(panel: Panel | None) -> object:
    """Make ``panel`` the current one; the token given back closes it (``close_panel``)."""
    return _PANEL.set(panel)


def close_panel(token: object) -> None:
    _PANEL.reset(token)  # type: ignore[arg-type]
