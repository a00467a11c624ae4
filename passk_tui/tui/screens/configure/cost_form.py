"""The configure form's cost fields: prices and budgets, their hints, and the line they fold to.

The checks are the flags' (``validate``, and ``check_budget_priced`` for a local
agent's cost budget, which needs its agents file read: the validator reads nothing). What
the agents file says a version costs is asked of ``evaluations.lookups``; a price typed
in the form wins over it, as a flag does.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from fractions import Fraction
from pathlib import Path

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.price import Price, money_text, price_text
from passk_tui.core.inputs.schema import COST_FIELDS
from passk_tui.core.render.cost_text import budget_text
from passk_tui.core.text.amounts import counted
from passk_tui.evaluations.cost_settings import PRICES, PriceProblem, check_budget_priced
from passk_tui.evaluations.lookups import local_price
from passk_tui.evaluations.settings_text import SettingsCheck

#: Fields whose error means the agents file's price cannot be known.
_LOCAL_AGENT = ("agents", "agent", "version")
#: Beside an empty budget.
NO_LIMIT = "none: no limit"
#: Beside an empty price of a local agent not yet known.
LOCAL_PRICE = "local: the agents file's, if any"


def check_cost(
    text: Mapping[str, str], verdict: SettingsCheck, errors: dict[str, str], hints: dict[str, str]
) -> str:
    """Add the cost fields' hints, and the error of a local cost budget with no price (to
    ``errors``); return the fields in one line, for when they are folded away."""
    agent, version = verdict.values.get("agent"), verdict.values.get("version")
    known = False  # whether the agents file's price for this version is known
    file_price: Price | None = None
    local = not text["stack"]
    unknown = errors.keys() & set(_LOCAL_AGENT)
    if local and isinstance(agent, str) and isinstance(version, int) and not unknown:
        explicit = Path(text["agents"]).expanduser() if text["agents"] else None
        with suppress(InputError):  # said beside the agents file
            file_price, known = local_price(explicit, agent, version), True
    for index, name in enumerate(PRICES):
        if name in errors:
            continue
        own = file_price.texts()[index] if file_price is not None else None
        if text[name]:
            if own is not None:
                hints[name] = f"wins over the agents file's {own}"
        elif not local:
            hints[name] = "none: tokens shown, no cost"
        elif own is not None:
            hints[name] = f"from the agents file: {own}"
        else:
            hints[name] = "none in the agents file" if known else LOCAL_PRICE
    typed = any(text[name] for name in PRICES)  # then the file's price is not the one used
    price = verdict.price if typed else file_price
    budget_cost = verdict.values.get("budget_cost")
    budget_cost = budget_cost if isinstance(budget_cost, Fraction) else None
    if known and not errors.keys() & {*PRICES, "budget_cost"}:
        assert isinstance(agent, str) and isinstance(version, int)
        try:
            check_budget_priced(budget_cost, price, agent, version)
        except PriceProblem as exc:
            errors[exc.field] = exc.message
    budget_runs = verdict.values.get("budget_runs")
    budget_runs = budget_runs if isinstance(budget_runs, int) else None
    if "budget_runs" not in errors:
        runs = f"at most {counted(budget_runs, 'Run')} in all" if budget_runs else NO_LIMIT
        hints["budget_runs"] = runs
    if "budget_cost" not in errors:
        hints["budget_cost"] = (
            f"at most {money_text(budget_cost)} spent" if budget_cost else NO_LIMIT
        )
    return _folded(price, not typed, budget_runs, budget_cost, errors)


def _folded(
    price: Price | None,
    from_file: bool,
    budget_runs: int | None,
    budget_cost: Fraction | None,
    errors: Mapping[str, str],
) -> str:
    """``prices 0.15 in / 0.6 out · budget 100 Runs, $2.50``: the cost fields in one line."""
    parts = ["no prices"]
    if price is not None:
        parts = [f"prices {price_text(price)}" + (" (agents file)" if from_file else "")]
    parts.append(budget_text(budget_runs, budget_cost) or "no budget")
    to_fix = sum(name in errors for name in COST_FIELDS)
    if to_fix:
        parts.append(f"{counted(to_fix, 'field')} to fix")
    return " · ".join(parts)
