"""What an evaluation cost, as every export lays it out: tokens, durations, money and budgets.

The figures are the evaluation's reading's (``core.reading``), made once; here they are
only written: in .json the totals and p50 / p95 per attempt as numbers (a cost as its
exact decimal, written as a JSON number), null where unknown; in .csv one column each,
``-`` where unknown; in .html a table of its own beside the results. Percentiles are
numpy's "linear", as the costs are worked out in core.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from passk_tui.core.inputs.price import money_text
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.reading.vocabulary import CaseCosts, Spread
from passk_tui.core.run.budget import short_of_plan
from passk_tui.core.text.decimals import exact_decimal, fixed
from passk_tui.reports.html_page import esc, settings_list
from passk_tui.store.models import StoredEvaluation

#: A raw JSON literal written as is (the .json renderer's ``verbatim`` for numbers).
Raw = Callable[[str], str]


def _count(value: float | None) -> float | int | None:
    """A token total or percentile as JSON: whole numbers as integers."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


def money_json(value: Fraction | None, raw: Raw) -> str | None:
    """A cost as a JSON number: its exact decimal, or a float when it has none (a mean)."""
    if value is None:
        return None
    try:
        return raw(exact_decimal(value))
    except ValueError:
        return raw(repr(float(value)))


def case_json(row: CaseCosts, raw: Raw) -> dict[str, Any]:
    """A case's ``tokens``, ``duration``, ``cost`` and ``cost_per_pass`` in the .json."""

    def spread(a: Spread, b: Spread, part: str) -> dict[str, Any]:
        return {"input": _count(getattr(a, part)), "output": _count(getattr(b, part))}

    tokens_in, tokens_out = row.input_tokens, row.output_tokens
    return {
        "tokens": {
            **spread(tokens_in, tokens_out, "total"),
            "p50": spread(tokens_in, tokens_out, "p50"),
            "p95": spread(tokens_in, tokens_out, "p95"),
            "reported": max(tokens_in.count, tokens_out.count),
        },
        "duration": {"p50": row.duration.p50, "p95": row.duration.p95},
        "cost": money_json(row.cost, raw),
        "cost_per_pass": money_json(row.cost_per_pass, raw),
    }


def evaluation_json(
    stored: StoredEvaluation, reading: EvaluationReading, raw: Raw
) -> dict[str, Any]:
    """The evaluation's ``cost``, its prices and budgets, and why it ended (``status_reason``)."""
    s = stored.settings
    price = None if s.price is None else s.price.texts()
    progress = stored.progress()
    return {
        "status_reason": stored.status_reason,
        "cost": money_json(reading.total_cost, raw),
        "price": None
        if price is None
        else {"input_per_mtok": raw(price[0]), "output_per_mtok": raw(price[1])},
        "budget": None
        if s.budget_runs is None and s.budget_cost is None
        else {
            "runs": s.budget_runs,
            "cost": None if s.budget_cost is None else raw(exact_decimal(s.budget_cost)),
            "runs_started": stored.runs_started,
            "short_of_plan": [progress.case_names[i] for i in short_of_plan(progress, s)]
            if stored.status_reason
            else [],
        },
    }


CSV_HEADER = [
    "input_tokens",
    "output_tokens",
    "input_p50",
    "input_p95",
    "output_p50",
    "output_p95",
    "duration_p50",
    "duration_p95",
    "cost",
    "cost_per_pass",
]


def _number_text(value: float | None, digits: int) -> str:
    if value is None:
        return "-"
    return fixed(value, digits)


def csv_cells(row: CaseCosts) -> list[str]:
    """A case's cost columns in the .csv: tokens as counts, seconds to two places, money exact."""
    tokens_in, tokens_out = row.input_tokens, row.output_tokens
    return [
        _number_text(tokens_in.total, 0),
        _number_text(tokens_out.total, 0),
        *(_number_text(getattr(s, p), 1) for s in (tokens_in, tokens_out) for p in ("p50", "p95")),
        _number_text(row.duration.p50, 2),
        _number_text(row.duration.p95, 2),
        "-" if row.cost is None else exact_decimal(row.cost),
        "-" if row.cost_per_pass is None else _per_pass_text(row.cost_per_pass),
    ]


def _per_pass_text(value: Fraction) -> str:
    """The cost of a success for a file: exact when it has a finite decimal, else 12 places."""
    try:
        return exact_decimal(value)
    except ValueError:
        return fixed(value, 12)


# -- .html ---------------------------------------------------------------------------------


def _cell(value: float | None, digits: int) -> str:
    return f'<td class="num">{esc(_number_text(value, digits))}</td>'


def cost_section(stored: StoredEvaluation, reading: EvaluationReading) -> str:
    """The report's "What it cost" section: per case tokens, durations and money, the total."""
    s = stored.settings
    priced = s.price is not None
    money_head = "<th>cost</th><th>cost per pass</th>" if priced else ""
    head = (
        "<thead><tr><th>case</th><th>tokens in</th><th>tokens out</th>"
        "<th>in p50 / p95</th><th>out p50 / p95</th><th>seconds p50 / p95</th>"
        f"{money_head}</tr></thead>"
    )
    body = "".join(_row(row, priced) for row in reading.costs)
    total = reading.total_cost
    lines = [
        "Tokens come from each Turn's usage; an attempt that reported none is left out "
        "(unknown, not 0). p50 / p95 are per attempt (linear interpolation, as numpy's "
        "default)."
    ]
    if priced:
        assert s.price is not None
        price_in, price_out = s.price.texts()
        lines.append(
            f"Priced at {esc(price_in)} / {esc(price_out)} per million tokens in / out: "
            f"{esc(money_text(total))} in all. Cost counts every attempt that reported usage, "
            "errored ones included; cost per pass is a case's cost over its passed attempts "
            "(- when none passed)."
        )
    budget = _budget_items(stored)
    return (
        f'<table class="figures costs" id="costs">{head}<tbody>{body}</tbody></table>'
        f'<p class="note">{" ".join(lines)}</p>{budget}'
    )


def _row(row: CaseCosts, priced: bool) -> str:
    def pair(a: float | None, b: float | None, digits: int) -> str:
        return f'<td class="num">{_number_text(a, digits)} / {_number_text(b, digits)}</td>'

    tokens_in, tokens_out = row.input_tokens, row.output_tokens
    money = (
        f'<td class="num">{esc(money_text(row.cost))}</td>'
        f'<td class="num">{esc(money_text(row.cost_per_pass))}</td>'
        if priced
        else ""
    )
    return (
        f'<tr><td class="name">{esc(row.name)}</td>'
        f"{_cell(tokens_in.total, 0)}{_cell(tokens_out.total, 0)}"
        f"{pair(tokens_in.p50, tokens_in.p95, 0)}{pair(tokens_out.p50, tokens_out.p95, 0)}"
        f"{pair(row.duration.p50, row.duration.p95, 2)}{money}</tr>"
    )


def _budget_items(stored: StoredEvaluation) -> str:
    s = stored.settings
    if s.budget_runs is None and s.budget_cost is None:
        return ""
    return settings_list(
        [
            ("budget (Runs)", s.budget_runs),
            ("budget (money)", None if s.budget_cost is None else money_text(s.budget_cost)),
            ("Runs started", stored.runs_started),
            ("ended", stored.status_reason),
        ]
    )
