"""The judges of an evaluation: a Target per judge agent, each vote one of its Runs, kept at once.

Built where targets are made: from the agents file (any kind of agent), or a Python
callable through the API. A vote is stored as soon as its Run ends, under the
attempt's key plus ``/judge/<run>``, so a resume, a re-export or a re-open never asks
it again; a vote in flight when the process died has no row and is asked again under
the same key. A stored vote is reused only for the very prompt it answered: when an
attempt's own Run ran again (a local agent's replay) its answer is new, and so are
its votes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Turn, Vote
from passk_tui.core.checks.base import Check, raw_text
from passk_tui.core.checks.judge import JudgeCheck, parse_verdict
from passk_tui.core.checks.panel import Judged, JudgeName
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.bounds import bounded_usage
from passk_tui.core.inputs.price import Price
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.core.run.target import Target
from passk_tui.store import Store
from passk_tui.store.reading import AttemptPlace


@dataclass(frozen=True, slots=True)
class Judge:
    """One judge agent version as an evaluation asks it: its target and prices."""

    agent: str
    version: int
    target: Target
    price: Price | None = None


#: Makes the judge for a name (an agent and version, None: the newest); InputError when none is.
JudgeMaker = Callable[[JudgeName], Judge]


def judge_checks(cases: Iterable[Case]) -> list[tuple[Case, JudgeCheck]]:
    """Every `judge` check of the cases, nested in `all`/`any` too, with its case."""
    found: list[tuple[Case, JudgeCheck]] = []

    def walk(case: Case, check: Check) -> None:
        if isinstance(check, JudgeCheck):
            found.append((case, check))
        for inner in getattr(check, "checks", ()):
            walk(case, inner)

    for case in cases:
        if case.check is not None:
            walk(case, case.check)
    return found


class StoredJudges:
    """The ``Judges`` an evaluation's panels ask: a vote stored, or a new Run kept at once."""

    def __init__(
        self,
        judges: Mapping[JudgeName, Judge],
        *,
        store: Store | None,
        evaluation_id: str,
        timeout: float,
    ) -> None:
        self.judges = dict(judges)
        self._store = store
        self._evaluation_id = evaluation_id
        self._timeout = timeout
        self._stored: dict[AttemptPlace, dict[int, Vote]] = {}
        if store is not None:
            self._stored = {
                place: {vote.run: vote for vote in votes}
                for place, votes in store.votes_of(evaluation_id).items()
            }

    async def prepare(self) -> None:
        """Check every judge (its key, its endpoint's address) before any Run."""
        for judge in self.judges.values():
            await judge.target.prepare()

    async def aclose(self) -> None:
        for judge in self.judges.values():
            await judge.target.aclose()

    async def vote(
        self, attempt: Judged, judge: JudgeName, prompt: str, digest: str, run: int
    ) -> Vote:
        place = (attempt.case_index, attempt.attempt, attempt.retake)
        kept = self._stored.get(place, {})
        if run in kept:
            if kept[run].prompt_sha256 == digest:
                return kept[run]
            # The attempt's answer changed since these votes were asked: none of them holds.
            self._stored.pop(place, None)
            if self._store is not None:
                self._store.forget_votes(self._evaluation_id, attempt)
        vote = await self._asked(attempt, self.judges[judge], prompt, digest, run)
        if self._store is not None:
            self._store.keep_vote(self._evaluation_id, attempt, vote)
        self._stored.setdefault(place, {})[run] = vote
        return vote

    async def _asked(
        self, attempt: Judged, judge: Judge, prompt: str, digest: str, run: int
    ) -> Vote:
        """One new Run of ``judge`` on ``prompt``; its failure is a vote without a verdict."""
        key = f"{attempt.key}/judge/{run}"
        planned = PlannedAttempt(
            attempt.case_index, Case("judge", prompt, None), attempt.attempt, key, attempt.retake
        )
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._timeout):
                turn = await judge.target.execute(planned, loop.time() + self._timeout, _no_notice)
        except TimeoutError:
            turn = Turn("timed_out", error=f"no judge Turn within the {self._timeout:g} s deadline")
        except RunError as exc:
            turn = Turn("failed", error=str(exc))
        usage = bounded_usage(turn.usage)
        text = None if turn.output is None else raw_text(turn.output)
        error = turn.error
        if turn.status != "completed":
            error = error or f"the judge's Turn ended {turn.status}"
            verdict = None
        else:
            verdict = parse_verdict(text)
            if verdict is None:
                error = "no VERDICT line"
        return Vote(
            run=run,
            agent=judge.agent,
            version=judge.version,
            verdict=verdict,
            text=text,
            error=error,
            usage=usage,
            cost=None if judge.price is None else judge.price.cost(usage),
            prompt_sha256=digest,
        )


def _no_notice(reason: str, delay: float) -> None:
    """A judge's resends are not the attempt's retries: nothing to show of them."""


def make_judges(
    cases: Sequence[Case],
    make: JudgeMaker,
    *,
    store: Store | None,
    evaluation_id: str,
    timeout: float,
) -> StoredJudges | None:
    """The judges the cases name, each made once; None when no case has a judge.

    A judge that cannot be made (no such agent or version) is bad input naming the case
    and its check's field, before anything starts."""
    found = judge_checks(cases)
    if not found:
        return None
    judges: dict[JudgeName, Judge] = {}
    for _case, check in found:
        if check.name in judges:
            continue
        try:
            judges[check.name] = make(check.name)
        except InputError as exc:
            raise InputError(f"{check.where}.agent: {exc}") from None
    return StoredJudges(judges, store=store, evaluation_id=evaluation_id, timeout=timeout)


def agents_file_judges(agents_path: str | None, concurrency: int) -> JudgeMaker:
    """Judges from the agents file (``agents_path``, else where one is looked for)."""

    def make(name: JudgeName) -> Judge:
        from passk_tui.targets.agents_file import (
            find_agents_file,
            find_version,
            load_agents,
            local_target,
        )

        path = find_agents_file(Path(agents_path) if agents_path else None)
        version = name.version
        if version is None:
            agents = load_agents(path)
            versions = agents.get(name.agent)
            if not versions:
                known = ", ".join(agents) or "none"
                raise InputError(f"{path}: no agent {name.agent!r} (agents: {known})")
            version = max(versions)
        spec = find_version(path, name.agent, version)
        target = local_target(path, name.agent, version, concurrency=concurrency)
        return Judge(name.agent, version, target, spec.price)

    return make


#: Python callables that judge, by the agent name a `judge` check gives (the API's ``judges=``).
JudgeCallables = Mapping[str, Callable[..., Any]]


def judges_for(
    cases: Sequence[Case],
    settings: Settings,
    store: Store,
    evaluation_id: str,
    callables: JudgeCallables | None = None,
) -> StoredJudges | None:
    """The evaluation's judges: a callable of ``callables`` by its name (version 0, as a
    callable agent's), else the agents file's agent."""
    from_file = agents_file_judges(settings.agents_path, settings.concurrency)
    named = dict(callables or {})

    def make(name: JudgeName) -> Judge:
        judge = named.get(name.agent)
        if judge is None:
            return from_file(name)
        from passk_tui.targets.callable import CallableTarget

        return Judge(
            name.agent, name.version or 0, CallableTarget(judge, evaluation_id, settings.timeout)
        )

    return make_judges(
        cases, make, store=store, evaluation_id=evaluation_id, timeout=settings.timeout
    )
