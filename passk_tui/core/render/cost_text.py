"""What an evaluation and a case cost, in words both faces print alike (stderr, Results, Case).

The figures are ``core.stats.costs.case_costs``'s; money is rounded here only, where shown
(``core.inputs.price.money_text``). Unknown is ``-``, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from passk_tui.core.inputs.price import money_text, price_text
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.stats.costs.case_costs import CaseCosts, Spread, evaluation_cost
from passk_tui.core.stats.costs.conversation_spread import ConversationSpread
from passk_tui.core.text.amounts import counted
from passk_tui.core.text.decimals import fixed


def _whole(value: float | None) -> str:
    return "-" if value is None else fixed(value, 0, grouped=True)


def _spread(spread: Spread, digits: int = 0) -> str:
    """``p50 41 p95 44``: the median and the 95th percentile per attempt."""
    if spread.p50 is None or spread.p95 is None:
        return "p50 - p95 -"
    return f"p50 {fixed(spread.p50, digits, grouped=True)} p95 {fixed(spread.p95, digits, grouped=True)}"


def tokens_text(rows: Sequence[CaseCosts]) -> str:
    """The evaluation's tokens in and out, over the attempts that reported usage."""
    reported = [r for r in rows if r.reported]
    if not reported:
        return "tokens: none reported"
    tokens_in = sum(r.input_tokens.total or 0 for r in reported)
    tokens_out = sum(r.output_tokens.total or 0 for r in reported)
    return f"tokens: {_whole(tokens_in)} in / {_whole(tokens_out)} out"


def cost_summary(rows: Sequence[CaseCosts], settings: Settings) -> str | None:
    """One line for the evaluation: its cost and tokens; None when nothing was reported or priced."""
    if settings.price is None and not any(r.reported for r in rows):
        return None
    parts = []
    if settings.price is not None:
        parts.append(
            f"cost {money_text(evaluation_cost(rows))} in all "
            f"(at {price_text(settings.price)} per million tokens)"
        )
    parts.append(tokens_text(rows))
    return " · ".join(parts)


def case_cost_text(row: CaseCosts, priced: bool, show_timing: bool = True) -> str:
    """One case's tokens (totals, and p50 / p95 per attempt), durations and, priced, its money."""
    seconds = _spread(row.duration, 2) if show_timing else "p50 - p95 -"
    parts = (
        [
            f"tokens in {_whole(row.input_tokens.total)} ({_spread(row.input_tokens)})",
            f"out {_whole(row.output_tokens.total)} ({_spread(row.output_tokens)})",
        ]
        if row.reported
        else ["tokens: none reported"]
    )
    parts.append(f"seconds per attempt {seconds}")
    if priced:
        parts.append(f"cost {money_text(row.cost)}, per pass {money_text(row.cost_per_pass)}")
    return " · ".join(parts)


def conversation_text(row: ConversationSpread) -> str:
    """``turns p50 3.0 p95 3.0 · tool calls p50 1.0 p95 2.0 · steps p50 2.0 p95 3.0``: how long
    the case's conversations ran, per attempt."""
    return (
        f"turns {_spread(row.turns, 1)} · tool calls {_spread(row.tool_calls, 1)} · "
        f"steps {_spread(row.steps, 1)}"
    )


def budget_text(budget_runs: int | None, budget_cost: Fraction | None) -> str | None:
    """``budget 14 Runs, $2.00``: the budgets set (the Run screen, the folded cost fields);
    None: none."""
    budgets = [counted(budget_runs, "Run")] if budget_runs is not None else []
    budgets += [money_text(budget_cost)] if budget_cost is not None else []
    return f"budget {', '.join(budgets)}" if budgets else None


def budget_and_price(settings: Settings) -> list[str]:
    """``budget 14 Runs``, ``at 0.15 in / 0.6 out per million tokens``: what a run is held to
    and priced at, beside its other settings (the Run screen); none, when neither is set."""
    budget = budget_text(settings.budget_runs, settings.budget_cost)
    parts = [budget] if budget else []
    if settings.price is not None:
        parts.append(f"at {price_text(settings.price)} per million tokens")
    return parts


#: Cases named in the compare's cost line; the rest are in its .json.
COMPARED_NAMED = 12


def comparison_cost_lines(a: Sequence[CaseCosts], b: Sequence[CaseCosts]) -> list[str]:
    """After the compare table (never in it): each case's cost per passed attempt, A -> B,
    then each side's total. ``-`` where a side has no price, no usage or no pass."""
    pairs = [
        f"{x.name} {money_text(x.cost_per_pass)} -> {money_text(y.cost_per_pass)}"
        for x, y in zip(a, b, strict=True)
    ]
    if len(pairs) > COMPARED_NAMED:
        pairs = [*pairs[:COMPARED_NAMED], f"and {len(pairs) - COMPARED_NAMED} more"]
    return [
        f"cost per passed attempt, A -> B: {', '.join(pairs)}",
        f"cost in all: A {money_text(evaluation_cost(a))}, B {money_text(evaluation_cost(b))}",
    ]
