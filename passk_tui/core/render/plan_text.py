"""What `passk-tui plan` prints: its tables and lines, from core's arithmetic (no figure here)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from passk_tui.core.inputs.price import Price, money_text, price_text
from passk_tui.core.render.table import plain_columns
from passk_tui.core.stats.costs.plan_cost import AttemptTokens
from passk_tui.core.stats.gating.gate import Reading
from passk_tui.core.stats.plan.adaptive_plan import AdaptiveRow
from passk_tui.core.stats.plan.compare_power import ComparePlan
from passk_tui.core.stats.plan.gate_chance import TARGETS, PlanRow
from passk_tui.core.stats.plan.gate_thresholds import MAX_PLANNED
from passk_tui.core.text.decimals import fixed
from passk_tui.core.text.figure_text import interval_text, level_text, two_decimals

#: A plan's cell for no n up to the limit.
BEYOND = f">{MAX_PLANNED}"


def n_cell(n: int | None, defined: bool = True) -> str:
    """An n, ``>10000`` when none up to the limit does, ``-`` when there is no right verdict."""
    if not defined:
        return "-"
    return BEYOND if n is None else str(n)


def target_headers(prefix: str = "n") -> list[str]:
    return [f"{prefix} for {target * 100:g}%" for target in TARGETS]


def all_pass_line(n: int | None, anytime: bool = False) -> str:
    """The plan's first line: from which n an agent that passes every attempt passes."""
    how = " (anytime-valid interval)" if anytime else ""
    if n is None:
        return (
            f"an agent that passes every attempt does not pass this gate by n = {MAX_PLANNED}{how}"
        )
    return f"an agent that passes every attempt passes this gate from n = {n}{how}"


def plan_table(rows: Sequence[PlanRow], k: int) -> str:
    """``pass rate  pass@K  n for 50%  n for 80%  verdict``, a row per expected rate."""
    cells = [["pass rate", f"pass@{k}", *target_headers(), "verdict"]]
    for row in rows:
        defined = row.verdict is not None
        cells.append(
            [
                two_decimals(row.rate),
                two_decimals(row.pass_at_k),
                *(n_cell(row.n_for[t], defined) for t in TARGETS),
                row.verdict or "never",
            ]
        )
    return plain_columns(cells)


def adaptive_table(rows: Sequence[AdaptiveRow], k: int) -> str:
    """``pass rate  pass@K  mean attempts  right  undecided  verdict``: simulated shares."""
    cells = [["pass rate", f"pass@{k}", "mean attempts", "right", "undecided", "verdict"]]
    for row in rows:
        cells.append(
            [
                two_decimals(row.rate),
                two_decimals(row.pass_at_k),
                fixed(row.mean_attempts, 1),
                two_decimals(row.right) if row.verdict is not None else "-",
                two_decimals(row.undecided),
                row.verdict or "never",
            ]
        )
    return plain_columns(cells)


def adaptive_line(first: int, cap: int, simulations: int, seed: int) -> str:
    return (
        f"adaptive: {first} attempts, then one at a time while undecided, up to {cap}; "
        f"{simulations:,} simulated cases per rate, seed {seed}"
    )


def suite_line(confidence: float, cases: int, level: float) -> str:
    """Under ``--family-wise --cases M``: the level each case is judged at, and why."""
    return (
        f"whole suite: each of {cases:,} cases judged at {level_text(level)} (Bonferroni), "
        f"so that every verdict is right with chance at least {level_text(confidence)}"
    )


def compare_table(plans: Sequence[ComparePlan]) -> str:
    """``A pass rate  B pass rate  change  n for 50%  n for 80%  verdict`` per version per case."""
    cells = [["A pass rate", "B pass rate", "change", *target_headers(), "verdict"]]
    for plan in plans:
        defined = plan.verdict != "never"
        cells.append(
            [
                two_decimals(plan.rate_a),
                two_decimals(plan.rate_b),
                ("+" if plan.rate_b >= plan.rate_a else "") + fixed(plan.rate_b - plan.rate_a),
                *(n_cell(plan.n_for[t], defined) for t in TARGETS),
                plan.verdict,
            ]
        )
    return plain_columns(cells)


def compare_line(alpha: float, cases: int) -> str:
    holm = f", Holm over {cases:,} cases (its first step)" if cases > 1 else ""
    return (
        f"attempts per version per case for Fisher's exact test (two-sided) to find the change "
        f"at p < {alpha:.4g}{holm}"
    )


def undecided_table(reading: Reading, more: Sequence[dict[float, int | None]]) -> str:
    """``plan --from``: each undecided case, its estimate and interval, the attempts to add."""
    k = reading.k
    cells = [["case", "passed", f"pass@{k}", reading.ci_header, *target_headers("more")]]
    for case, found in zip(reading.undecided, more, strict=True):
        f, interval = case.figures, case.intervals.pass_at_k
        cells.append(
            [
                f.name,
                f"{f.passed}/{f.n}",
                two_decimals(f.pass_at_k),
                "-" if interval is None else interval_text(interval),
                *(n_cell(found[t]) for t in TARGETS),
            ]
        )
    return plain_columns(cells)


def _tokens_text(tokens: AttemptTokens) -> str:
    return f"{float(tokens.input):,.4g} in / {float(tokens.output):,.4g} out"


def _targets_text(costs: dict[float, Fraction | None]) -> str:
    return " / ".join(money_text(costs[t]) for t in TARGETS)


def _for_targets() -> str:
    return "for " + " / ".join(f"{t * 100:g}%" for t in TARGETS)


def cost_lines(
    rates: Sequence[Fraction], costs: Sequence[dict[float, Fraction | None]],
    tokens: AttemptTokens, price: Price,
) -> list[str]:  # fmt: skip
    """After a plan's table: one attempt's cost, then per expected rate what each case's n cost."""
    per_rate = ", ".join(
        f"{two_decimals(rate)} {_targets_text(found)}"
        for rate, found in zip(rates, costs, strict=True)
    )
    return [_attempt_cost_line(tokens, price), f"cost per case, {_for_targets()}: {per_rate}"]


def adaptive_cost_lines(
    rates: Sequence[Fraction], means: Sequence[Fraction | None], cap: int,
    most: Fraction | None, tokens: AttemptTokens, price: Price,
) -> list[str]:  # fmt: skip
    """After ``plan --adaptive``'s table, in the fixed plan's words: one attempt's cost, then per
    expected rate what a case's mean attempts cost, and the most a case can (its cap)."""
    per_rate = ", ".join(
        f"{two_decimals(rate)} {money_text(mean)}" for rate, mean in zip(rates, means, strict=True)
    )
    return [
        _attempt_cost_line(tokens, price),
        f"cost per case, for the mean attempts: {per_rate}; "
        f"at most {money_text(most)} ({cap:,} attempts, the cap)",
    ]


def _attempt_cost_line(tokens: AttemptTokens, price: Price) -> str:
    each = price.of_tokens(tokens.input, tokens.output)
    return (
        f"cost: {money_text(each)} an attempt ({_tokens_text(tokens)} tokens at "
        f"{price_text(price)} per million tokens)"
    )


def undecided_cost_lines(
    reading: Reading,
    costs: Sequence[dict[float, Fraction | None]],
    price: Price,
    tokens: AttemptTokens | None = None,
) -> list[str]:
    """After ``plan --from``'s table: what each undecided case's more attempts would cost, at
    ``tokens`` per attempt or its own observed ones, and the sum (``-`` for a case that
    reported none, or whose n is past the limit)."""
    named = ", ".join(
        f"{case.figures.name} {_targets_text(found)}"
        for case, found in zip(reading.undecided, costs, strict=True)
    )
    per = (
        "each case's observed tokens per attempt"
        if tokens is None
        else f"{_tokens_text(tokens)} tokens an attempt"
    )
    totals: dict[float, Fraction | None] = {}
    for t in TARGETS:  # unknown for one case (no usage, or no n up to the limit): unknown in all
        known = [c for found in costs if (c := found[t]) is not None]
        totals[t] = sum(known, Fraction(0)) if len(known) == len(costs) else None
    return [
        f"cost of the attempts to add, {_for_targets()} ({per} at {price_text(price)} per "
        f"million tokens): {named}; in all {_targets_text(totals)}"
    ]
