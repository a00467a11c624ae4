"""`judge-check`: the judge asked about answers a person labelled, to see whether it is right.

Each labelled answer is judged as a `judge` check would judge it in an evaluation (the
same prompt, votes, asks again and majority), through the same judges; nothing is stored:
the labels file is the record, and the figures come from the verdicts at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.checks.judge import JudgeCheck
from passk_tui.core.checks.panel import JudgeName, Panel, close_panel, open_panel
from passk_tui.core.errors import InputError
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.core.run.labels import Labelled
from passk_tui.core.stats.agreement.judge_votes import JudgeAgreement, judge_agreements
from passk_tui.core.stats.agreement.labels import LabelAgreement
from passk_tui.evaluations.judging import StoredJudges, agents_file_judges


@dataclass(frozen=True)
class JudgeCheckResult:
    """The judge beside the labels, and its agreement with itself over the same answers."""

    labels: LabelAgreement
    judge: JudgeAgreement | None


def labelled_checks(
    labelled: Sequence[Labelled], agent: str, version: int | None, votes: int
) -> list[Case]:
    """A case per labelled answer, its check the judge with that answer's rubric."""
    return [
        Case(
            f"label-{index}",
            item.input,
            JudgeCheck(
                {"judge": item.rubric, "agent": agent, "votes": votes}
                | ({} if version is None else {"version": version}),
                item.place,
            ),
        )
        for index, item in enumerate(labelled, start=1)
    ]


async def check_judge(
    labelled: Sequence[Labelled],
    agent: str,
    version: int | None,
    votes: int,
    *,
    agents_path: str | None,
    concurrency: int,
    timeout: float,
) -> JudgeCheckResult:
    """Judge every labelled answer (``concurrency`` at once) and measure the judge."""
    cases = labelled_checks(labelled, agent, version, votes)
    name = JudgeName(agent, version)
    try:
        judge = agents_file_judges(agents_path, concurrency)(name)
    except InputError as exc:
        raise InputError(f"--agent {agent}: {exc}") from None
    judges = StoredJudges({name: judge}, store=None, evaluation_id="judge-check", timeout=timeout)
    await judges.prepare()
    gate = asyncio.Semaphore(concurrency)
    try:
        panels = await asyncio.gather(
            *(_judged(case, item, index, judges, gate) for index, (case, item) in
              enumerate(zip(cases, labelled, strict=True)))
        )  # fmt: skip
    finally:
        await judges.aclose()
    pairs = [(item.passed, verdict) for item, (verdict, _) in zip(labelled, panels, strict=True)]
    records = [record for _, record in panels]
    agreements = judge_agreements(records)
    return JudgeCheckResult(LabelAgreement.of(pairs), agreements[0] if agreements else None)


async def _judged(
    case: Case, item: Labelled, index: int, judges: StoredJudges, gate: asyncio.Semaphore
) -> tuple[bool | None, AttemptRecord]:
    """The judge's verdict on one labelled answer (None: no majority), and a record of its votes."""
    assert case.check is not None
    planned = PlannedAttempt(index, case, 1, f"judge-check/{index + 1}")
    panel = Panel(planned, case.input, judges)
    async with gate:
        token = open_panel(panel)
        try:
            # No attempt deadline here: each judge Run is bounded by --timeout (StoredJudges).
            verdict = await case.check.judge(item.answer, asyncio.get_running_loop().time())
        finally:
            close_panel(token)
    said = None if verdict.errored else verdict.passed
    outcome = Outcome.ERRORED if said is None else Outcome.PASSED if said else Outcome.WRONG
    record = AttemptRecord(
        index, case.name, 1, planned.key, outcome, "completed", item.answer, verdict.reason,
        None, None, None, 0.0, 0.0, votes=tuple(panel.votes),
    )  # fmt: skip
    return said, record
