"""A simulated user's messages in the store: kept as each lands, given again under its key for
the conversation it was shown (a resume's replay), asked anew for another (a local agent whose
turn ran again and answered otherwise)."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from passk_tui.core.attempt import Turn
from passk_tui.core.inputs.conversation import SimulatedUser
from passk_tui.core.inputs.price import Price
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.core.run.target import Target
from passk_tui.core.transcript import Conversation, Message, Transcript
from passk_tui.evaluations.recorded import StoredUsers
from passk_tui.store import Store
from tests.support.records import settings_for


class _Sampling:
    """A user that writes something new each time it is asked, its Runs counted."""

    def __init__(self) -> None:
        self.definition: dict[str, str] = {}
        self.asked = 0
        self._n = itertools.count(1)

    async def prepare(self) -> None: ...
    async def aclose(self) -> None: ...

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: object) -> Turn:
        self.asked += 1
        return Turn("completed", f"message {next(self._n)}", usage={"input_tokens": 5})


class _Users:
    """The agents file's users, as ``StoredUsers`` wraps them: one sampling user."""

    def __init__(self, user: _Sampling) -> None:
        self.user = user

    def user_target(self, user: SimulatedUser) -> Target:
        return self.user

    def user_price(self, user: SimulatedUser) -> Price | None:
        return None

    async def prepare(self) -> None: ...
    async def aclose(self) -> None: ...


def _shown(*said: str) -> PlannedAttempt:
    """The user's second message asked, shown this conversation."""
    messages = tuple(Message("user", text, 1) for text in said)
    case = Case("c", Conversation(Transcript(messages), system="You are Ana."), None)
    return PlannedAttempt(0, case, 1, "ev/c/c/1/user/2")


def test_a_message_is_kept_and_given_again_only_for_the_conversation_it_answered(
    tmp_path: Path,
) -> None:
    user = _Sampling()
    spec = SimulatedUser(agent="customer", instruction="You are Ana.")
    with Store.open(tmp_path / "passk.db") as store:
        store.create_evaluation(
            "ev", settings_for(tmp_path / "c.toml"), [Case("c", "q", None)], "x"
        )

        def ask(attempt: PlannedAttempt) -> Turn:
            # Each time a new process's users, as a resume makes them: read from the store.
            target = StoredUsers(_Users(user), store, "ev").user_target(spec)
            return asyncio.run(target.execute(attempt, 0.0, lambda reason, delay: None))

        first = ask(_shown("hello", "how can I help?"))
        assert (first.output, user.asked) == ("message 1", 1)
        # A resume, the agent's turn replayed as it was: the message kept, the user not asked.
        again = ask(_shown("hello", "how can I help?"))
        assert (again.output, again.usage, user.asked) == ("message 1", {"input_tokens": 5}, 1)
        # The agent answered otherwise this time: the user is asked, and that is kept instead.
        other = ask(_shown("hello", "what do you want?"))
        assert (other.output, user.asked) == ("message 2", 2)
        assert ask(_shown("hello", "what do you want?")).output == "message 2"
        assert user.asked == 2
