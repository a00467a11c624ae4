"""The judge in the .json: the evaluation's ``judge`` block, each case's unanimity and judge
cost, and each attempt's ``judge`` (its votes in words and every Run of the judge)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from passk_tui.core.attempt import AttemptRecord, Vote
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.reading.vocabulary import JudgeCosts
from passk_tui.reports.costs import Raw, money_json

#: A value from outside written compactly as JSON (the .json renderer's ``verbatim``).
Verbatim = Callable[[Any], str]


def evaluation_json(reading: EvaluationReading, raw: Raw) -> dict[str, Any]:
    """The evaluation's ``judge`` (the first judge's agreement; null without one), ``judges``
    (every judge's, for a suite with several) and ``judge_cost``."""
    agreements = [
        {
            "agent": a.agent,
            "version": a.version,
            "votes": a.votes,
            "answers": a.answers,
            "unanimous": a.unanimous_share,
            "fleiss_kappa": a.fleiss_kappa,
            "line": a.line(),
        }
        for a in reading.judges
    ]
    return {
        "judge": agreements[0] if agreements else None,
        "judges": agreements,
        **_costs_json(reading.judge_costs, raw),
    }


def case_json(reading: EvaluationReading, case_index: int, raw: Raw) -> dict[str, Any]:
    """A case's ``unanimous`` share of judged answers (null: none judged) and its judge cost."""
    unanimous, costs = reading.case_judging(case_index)
    return {"unanimous": unanimous, **_costs_json(costs, raw)}


def _costs_json(costs: JudgeCosts, raw: Raw) -> dict[str, Any]:
    return {
        "judge_runs": costs.runs,
        "judge_tokens": {"input": costs.input_tokens, "output": costs.output_tokens},
        "judge_cost": money_json(costs.cost, raw),
    }


def attempt_json(
    reading: EvaluationReading, record: AttemptRecord, verbatim: Verbatim, raw: Raw
) -> dict[str, Any] | None:
    """An attempt's ``judge``: ``votes 2/3 pass`` and each judge Run; null when none judged it."""
    if not record.votes:
        return None
    answers = reading.votes(record)
    first = answers[0]
    return {
        "agent": first.agent,
        "version": first.version,
        "votes": first.asked,
        "passed": first.passes,
        "failed": first.fails,
        "said": "; ".join(a.text() for a in answers),
        "runs": [_run_json(record, vote, verbatim, raw) for vote in record.votes],
    }


def _run_json(record: AttemptRecord, vote: Vote, verbatim: Verbatim, raw: Raw) -> dict[str, Any]:
    return {
        "run": vote.run,
        "key": f"{record.key}/judge/{vote.run}",
        "agent": vote.agent,
        "version": vote.version,
        "verdict": None if vote.verdict is None else ("pass" if vote.verdict else "fail"),
        "text": vote.text,
        "error": vote.error,
        "usage": verbatim(vote.usage),
        "cost": money_json(vote.cost, raw),
    }
