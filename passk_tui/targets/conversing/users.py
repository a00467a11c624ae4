"""Simulated users: the agents of the local agents file that play a case's user.

A case's ``user = { agent = "customer", ... }`` names an agent of the agents file (a
``command`` or an ``openai`` version, the newest unless ``version`` says). Each is
checked when the evaluation is set up (a missing one is bad input, exit 2, before any
Run) and made once, shared by every attempt.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.conversation import SimulatedUser
from passk_tui.core.inputs.price import Price
from passk_tui.core.run.cases import Case
from passk_tui.core.run.target import Target
from passk_tui.targets.agents_file import find_agents_file, load_agents, local_target


class AgentsFileUsers:
    """The simulated users of an evaluation's cases, found in one agents file."""

    def __init__(self, path: Path, cases: Sequence[Case], concurrency: int) -> None:
        self.path = path
        self.concurrency = concurrency
        agents = load_agents(path)
        #: (agent, version asked) -> the exact version found, checked before anything runs.
        self._versions: dict[tuple[str, int | None], int] = {}
        #: (agent, exact version) -> its prices: the user's money is counted apart.
        self._prices: dict[tuple[str, int], Price | None] = {}
        for case in cases:
            if case.user is None:
                continue
            user = case.user
            where = f"{path}: case {case.name!r}: user agent {user.agent!r}"
            versions = agents.get(user.agent)
            if versions is None:
                raise InputError(f"{where}: no such agent (agents: {', '.join(agents) or 'none'})")
            number = max(versions) if user.version is None else user.version
            if number not in versions:
                raise InputError(f"{where}: no version {number}")
            self._versions[(user.agent, user.version)] = number
            self._prices[(user.agent, number)] = versions[number].price
        self._targets: dict[tuple[str, int], Target] = {}

    def user_target(self, user: SimulatedUser) -> Target:
        """The target playing ``user``, made at its first use."""
        return self._target(user.agent, self._versions[(user.agent, user.version)])

    def _target(self, agent: str, version: int) -> Target:
        found = self._targets.get((agent, version))
        if found is None:
            found = local_target(self.path, agent, version, concurrency=self.concurrency)
            self._targets[(agent, version)] = found
        return found

    async def prepare(self) -> None:
        """Each user's agent checked before any Run (an endpoint nothing answers at is exit 3
        at once, as the agent's own would be, not an error in every attempt)."""
        for agent, version in sorted(set(self._prices)):
            await self._target(agent, version).prepare()

    def user_price(self, user: SimulatedUser) -> Price | None:
        """The prices of the version playing ``user``, as its agents file gives them."""
        version = self._versions[(user.agent, user.version)]
        return self._prices[(user.agent, version)]

    async def aclose(self) -> None:
        """Close every simulated user's target."""
        for target in self._targets.values():
            await target.aclose()


def simulated_users(
    cases: Sequence[Case], agents_path: str | None, concurrency: int
) -> AgentsFileUsers | None:
    """The simulated users of ``cases`` from the agents file (None when no case has one)."""
    if not any(case.user is not None for case in cases):
        return None
    path = find_agents_file(Path(agents_path) if agents_path else None)
    return AgentsFileUsers(path, cases, concurrency)
