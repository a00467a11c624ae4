"""One attempt played to its end: one input, or a conversation of turns, its transcript kept.

A target executes one input at a time (``core/run/target.py``). A conversation is
played here on top of it: for each user turn the target gets the whole
conversation so far (a ``Conversation`` input) under its own key,
``<attempt key>/turn/<i>``, so that a stack replays each turn it already ran and a
resumed attempt is played again from its first turn without running anything twice.
A simulated user is another target, asked for each user message under
``<attempt key>/user/<i>``. The transcript grows in a ``TranscriptLog`` the attempt
owns, so what happened before a deadline cut the attempt is still kept.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from fractions import Fraction
from typing import Any, Protocol

from passk_tui.core.attempt import Turn
from passk_tui.core.inputs.conversation import SimulatedUser
from passk_tui.core.inputs.price import Price
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.target import RetryNotice, Target
from passk_tui.core.transcript import (
    Conversation,
    Message,
    Transcript,
    input_text,
    plain_transcript,
    usage_sum,
)

#: Longest idempotency key the stack takes (runs-api.md).
_KEY_LIMIT = 255
#: What a simulated user is told when no one has spoken yet (an endpoint may refuse a
#: conversation of a system message alone).
OPENING = "(The conversation starts now: write the user's first message.)"


class UserAgents(Protocol):
    """Where a simulated user's agent is found (the agents file)."""

    def user_target(self, user: SimulatedUser) -> Target:
        """The target of the agent playing ``user``; InputError when there is none."""
        ...

    def user_price(self, user: SimulatedUser) -> Price | None:
        """The prices of the version playing ``user`` (its ``price``); None: it has none."""
        ...

    async def prepare(self) -> None:
        """Check every simulated user's agent as the agent's own is checked, before any Run."""
        ...

    async def aclose(self) -> None:
        """Release their connections and processes."""
        ...


class TranscriptLog:
    """An attempt's transcript as it grows, readable whenever the attempt ends."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.user_usage: dict[str, int] | None = None
        self.user_cost: Fraction | None = None
        #: True once the attempt had more than one input and one answer: its transcript is kept.
        self.kept = False
        #: One input and the Turn that answered it without tools: made into messages only when
        #: read (most attempts are such, and a check that reads the transcript is rare).
        self.plain: tuple[Any, Turn] | None = None

    def transcript(self) -> Transcript:
        """What happened so far."""
        if self.plain is not None:
            given, turn = self.plain
            return plain_transcript(given, turn.output, turn.status == "completed")
        return Transcript(
            tuple(self.messages), user_usage=self.user_usage, user_cost=self.user_cost
        )

    def add_steps(self, turn: Turn, number: int, seconds: float) -> None:
        """The agent's steps of one Turn (its tool calls, then its answer), as turn ``number``."""
        steps = [replace(step, turn=number) for step in turn.steps]
        if any(step.role == "tool" for step in steps):
            self.kept = True
        if not steps and turn.status == "completed" and turn.wrong is None:
            steps = [Message("assistant", input_text(turn.output), number, usage=turn.usage)]
        if steps and steps[-1].duration is None and len(steps) == 1:
            steps[-1] = replace(steps[-1], duration=seconds)
        self.messages.extend(steps)


def step_key(key: str, kind: str, number: int) -> str:
    """The key of one turn (``kind`` 'turn') or simulated user message ('user') of an attempt.

    ``<key>/<kind>/<n>`` when it fits in the stack's 255 characters; otherwise the attempt's
    key is hashed (``h:<sha256>``), still distinct per attempt and stable across resumes.
    """
    tail = f"/{kind}/{number}"
    if len(key) + len(tail) <= _KEY_LIMIT:
        return key + tail
    return "h:" + hashlib.sha256(key.encode()).hexdigest() + tail


async def play(
    target: Target,
    planned: PlannedAttempt,
    deadline: float,
    notify: RetryNotice,
    log: TranscriptLog,
    users: UserAgents | None,
) -> Turn:
    """Run the attempt: its one input, its ``turns`` in order, or its simulated user's."""
    case = planned.case
    if not case.conversational:
        turn = await target.execute(planned, deadline, notify)
        if turn.steps:  # tools were called: the steps are the transcript's
            log.messages.append(Message("user", input_text(case.input), 1))
            log.add_steps(turn, 1, 0.0)
        else:
            log.plain = (case.input, turn)
        return turn
    log.kept = True
    if case.turns is not None:
        return await _play_turns(target, planned, deadline, notify, log, case.turns)
    assert case.user is not None
    if users is None:
        return Turn("failed", error="turn 1: no agents file to find the simulated user in")
    player = (users.user_target(case.user), users.user_price(case.user))
    return await _play_user(target, player, planned, deadline, notify, log, case.user)


async def _play_turns(
    target: Target,
    planned: PlannedAttempt,
    deadline: float,
    notify: RetryNotice,
    log: TranscriptLog,
    turns: tuple[str, ...],
) -> Turn:
    """Each of the user's messages in turn, the agent answering each."""
    ended: list[Turn] = []
    for number, text in enumerate(turns, start=1):
        log.messages.append(Message("user", text, number))
        turn = await _ask(target, _turn_of(planned, log, number), deadline, notify, log, number)
        ended.append(turn)
        if turn.status != "completed" or turn.wrong is not None:
            return _cut_at(turn, number, ended)
    return _conversation_turn(ended)


async def _play_user(
    target: Target,
    player: tuple[Target, Price | None],
    planned: PlannedAttempt,
    deadline: float,
    notify: RetryNotice,
    log: TranscriptLog,
    user: SimulatedUser,
) -> Turn:
    """The simulated user writes, the agent answers, until the user's stop text or max_turns.
    ``player`` is the user's target and its prices: what it writes is priced as it lands."""
    user_target, price = player
    ended: list[Turn] = []
    for number in range(1, user.max_turns + 1):
        view = Conversation(_user_view(log.transcript()), system=user.instruction)
        asked = replace(
            planned,
            case=replace(planned.case, input=view),
            key=step_key(planned.key, "user", number),
        )
        written = await user_target.execute(asked, deadline, notify)
        if written.status != "completed":
            problem = written.error or written.status
            return _cut_at(Turn("failed", error=f"simulated user: {problem}"), number, ended)
        log.user_usage = usage_sum(iter((log.user_usage, written.usage)))
        spent = None if price is None else price.cost(written.usage)
        if spent is not None:
            log.user_cost = spent + (log.user_cost or 0)
        text = input_text(written.output)
        stopped = user.stop is not None and user.stop in text
        if stopped and user.stop is not None:
            text = text.replace(user.stop, "").strip()
        if text:
            log.messages.append(Message("user", text, number, usage=written.usage, simulated=True))
        if stopped or not text:
            break
        turn = await _ask(target, _turn_of(planned, log, number), deadline, notify, log, number)
        ended.append(turn)
        if turn.status != "completed" or turn.wrong is not None:
            return _cut_at(turn, number, ended)
    return _conversation_turn(ended)


def _turn_of(planned: PlannedAttempt, log: TranscriptLog, number: int) -> PlannedAttempt:
    """Turn ``number`` of the attempt: the conversation so far as input, under its own key."""
    conversation = Conversation(log.transcript())
    return replace(
        planned,
        case=replace(planned.case, input=conversation),
        key=step_key(planned.key, "turn", number),
    )


async def _ask(
    target: Target,
    planned: PlannedAttempt,
    deadline: float,
    notify: RetryNotice,
    log: TranscriptLog,
    number: int,
) -> Turn:
    """One Turn of the agent, its steps added to the transcript."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    turn = await target.execute(planned, deadline, notify)
    log.add_steps(turn, number, loop.time() - began)
    return turn


def _user_view(transcript: Transcript) -> Transcript:
    """The conversation as the simulated user sees it: the agent's answers are what it is told
    (its ``user`` messages), its own messages are its answers; tool calls are not its to see."""
    flipped = [
        replace(m, role="assistant" if m.role == "user" else "user", calls=())
        for m in transcript.messages
        if m.role in ("user", "assistant") and m.content
    ]
    if not flipped:
        flipped = [Message("user", OPENING, 1)]
    return Transcript(tuple(flipped))


def _cut_at(turn: Turn, number: int, ended: list[Turn]) -> Turn:
    """The attempt ends at turn ``number``, which did not complete or was found wrong: named
    in its error, or in its reason."""
    usage = usage_sum(t.usage for t in ended) if ended else turn.usage
    if turn.wrong is not None:
        return replace(turn, wrong=f"turn {number}: {turn.wrong}", usage=usage, steps=())
    error = f"turn {number}: {turn.error or turn.status}"
    return replace(turn, error=error, usage=usage, steps=())


def _conversation_turn(ended: list[Turn]) -> Turn:
    """A whole conversation as one ended Turn: the last answer, the tokens of every turn."""
    if not ended:
        return Turn("completed", output=None)
    last = ended[-1]
    return replace(last, usage=usage_sum(t.usage for t in ended), steps=())
