"""The domain of one attempt: the Turn a target returns, its outcome, and the record kept of it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from passk_tui.core.transcript import Message, Transcript, plain_transcript

#: Turn statuses after which nothing more will happen (runs-api.md).
ENDED_STATUSES = frozenset({"completed", "failed", "stopped", "cancelled", "timed_out"})


class Outcome(StrEnum):
    """What an attempt amounted to. Wrong is the agent's; errored is the platform's."""

    PASSED = "passed"
    WRONG = "wrong"
    ERRORED = "errored"
    WITHDRAWN = "withdrawn"
    """Stopped by the user mid-flight: measured nothing, counted nowhere, run again on resume."""


@dataclass(frozen=True, slots=True)
class Turn:
    """How a target's Run ended: the Turn as the stack (or a local agent) reported it.

    ``status`` is an ended Turn status; an attempt that never got a Turn (the
    request failed for good, the deadline passed) carries ``timed_out`` or
    ``failed`` with ``error`` saying why, and no ids.
    """

    status: str
    output: Any = None
    error: str | None = None
    run_id: str | None = None
    turn_id: str | None = None
    usage: dict[str, Any] | None = None
    finish_reason: str | None = None
    """Why the model stopped, as an `openai` endpoint said ('stop', 'length': cut off by
    its token limit); None when the target has no such thing to say."""
    node: str | None = None
    """The Ray node the attempt ran on (``--executor ray``); None: here, or on the stack."""
    steps: tuple[Message, ...] = ()
    """What the agent said and did in this Turn, step by step (a model's tool calls and
    their answers, then its last answer); empty: one answer, the ``output``."""
    wrong: str | None = None
    """Why the agent's own side found its answer wrong (a pytest body's failed assertion):
    the attempt is then wrong with this reason, and its check is not asked. None: the
    check judges the ``output``."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A check's judgement of one answer; ``reason`` says why it failed (expected vs got)."""

    passed: bool
    reason: str | None = None
    errored: bool = False
    """True when the check could not judge (its sandbox's limit hit): the attempt is errored,
    with ``reason`` as its error, and counts as neither passed nor wrong."""


@dataclass(frozen=True, slots=True)
class Vote:
    """One Run of a judge on one answer: what it said, its verdict, and what it cost.

    ``run`` numbers the judge's Runs of the attempt from 1 (asks again included): it is
    the last part of the Run's key, ``<attempt key>/judge/<run>``.
    """

    run: int
    agent: str
    version: int
    verdict: bool | None
    """True: ``VERDICT: PASS``; False: ``VERDICT: FAIL``; None: no verdict line, or the Run errored."""
    text: str | None
    error: str | None = None
    usage: dict[str, Any] | None = None
    cost: Fraction | None = None
    """What the Run cost at the judge version's prices; None without prices or usage."""
    prompt_sha256: str = ""
    """The hash of the prompt it was asked: a stored vote is reused only for the same prompt."""


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """Everything kept about one finished attempt: what the store writes and the faces show."""

    case_index: int
    case: str
    attempt: int
    key: str
    outcome: Outcome
    status: str
    output: Any
    reason: str | None
    error: str | None
    run_id: str | None
    turn_id: str | None
    started: float
    ended: float
    usage: dict[str, Any] | None = None
    output_size: int | None = None
    """The answer's full length in characters when ``output`` keeps only its start
    (``core.inputs.bounds.OUTPUT_LIMIT``); None when the whole answer is kept."""
    retake: int = 0
    """0 for an attempt's first run; n for its n-th rerun after being withdrawn."""
    retries: int = 0
    """How many times the target resent or asked again (429, 5xx, a lost connection) before
    the attempt ended: what a flaky stack cost it, beside whatever it measured."""
    finish_reason: str | None = None
    """The Turn's ``finish_reason`` (an `openai` answer's); None when it had none."""
    node: str | None = None
    """The Ray node it ran on (``--executor ray``); None: here, or on the stack. Its
    ``retries`` then count the times it was run again because its node died."""
    transcript: Transcript | None = None
    """Its conversation, bounded (``Transcript.bounded``); None for one message in and one
    answer out with no tools, whose input and answer say it all (``plain_transcript``)."""
    votes: tuple[Vote, ...] = ()
    """The judge's Runs on this answer, in order (a `judge` check's); () when none judged it."""

    @property
    def duration(self) -> float:
        """Wall seconds from the attempt's first request to its end."""
        return self.ended - self.started


def transcript_of(record: AttemptRecord, given: Any) -> Transcript:
    """An attempt's transcript: the one stored, or for one input (``given``) and one answer
    with no tools, the two of them."""
    if record.transcript is not None:
        return record.transcript
    answered = record.status == "completed" or record.output is not None
    return plain_transcript(given, record.output, answered)
