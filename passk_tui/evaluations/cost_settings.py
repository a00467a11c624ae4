"""Prices for the one validator (``settings_text.validate``), for a resume (which keeps
the stored prices) and from a local version's own ``price``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.price import Price
from passk_tui.core.inputs.schema import BY_NAME, FIELDS, Origin, Resume, Worded, flag_name
from passk_tui.core.inputs.settings import Settings

#: The prices: stored with the evaluation and kept by a resume (one may be given that had none).
PRICES = tuple(f.name for f in FIELDS if f.resume is Resume.PRICE)


class PriceProblem(InputError):
    """A price missing where it is needed (one of a pair, or a cost budget's): ``field`` is
    where the form says so, ``message`` what it says beside it, ``line`` the line in the
    caller's words (``worded``); the text is the CLI's line."""

    def __init__(self, field: str, message: str, line: Worded) -> None:
        super().__init__(line(flag_name))
        self.field, self.message, self.line = field, message, line

    def worded(self, origin: Origin) -> str:
        """The line as ``origin`` calls the fields (the keywords for ``evaluate()``)."""
        return self.line(lambda name: BY_NAME[name].called(origin))


def price_pair(price_in: Fraction | None, price_out: Fraction | None) -> Price | None:
    """The price given by its two fields (None: neither); PriceProblem for one alone."""
    if price_in is None and price_out is None:
        return None
    if price_in is None or price_out is None:
        missing, given = ("in", "out") if price_in is None else ("out", "in")
        raise PriceProblem(
            f"price_{missing}",
            f"give the price {missing} too (prices come in pairs)",
            lambda called: (
                f"{called(f'price_{given}')}: give {called(f'price_{missing}')} too "
                "(prices come in pairs)"
            ),
        )
    return Price(price_in, price_out)


def unpriced_budget(values: Mapping[str, Any], price: Price | None) -> PriceProblem | None:
    """A stack agent's cost budget with no price given (no agents file can give one), or None."""
    if values.get("budget_cost") is None or price is not None:
        return None
    return PriceProblem(
        "budget_cost",
        "needs prices (the price in and out)",
        lambda called: (
            f"{called('budget_cost')}: needs prices ({called('price_in')} and "
            f"{called('price_out')})"
        ),
    )


def with_local_price(settings: Settings, agents_file: bool = True) -> Settings:
    """The settings with a local version's own ``price`` when no flag gave one (``agents_file``
    False: no file names the agent, a Python callable); a ``--budget-cost`` with no price from
    either is bad input (PriceProblem)."""
    price = settings.price
    if price is None and not settings.stack and agents_file:
        from passk_tui.targets.agents_file import find_agents_file, find_version

        explicit = Path(settings.agents_path) if settings.agents_path else None
        price = find_version(find_agents_file(explicit), settings.agent, settings.version).price
    check_budget_priced(settings.budget_cost, price, settings.agent, settings.version)
    return replace(settings, price=price)


def check_budget_priced(
    budget_cost: Fraction | None, price: Price | None, agent: str, version: int
) -> None:
    """A local agent's cost budget needs its price, a flag's or its agents file's: PriceProblem
    (the CLI's line, and the form's words beside the field) when it has neither. (A stack
    agent's is the validator's to refuse: it needs no file.)"""
    if budget_cost is None or price is not None:
        return
    raise PriceProblem(
        "budget_cost",
        "needs prices: give a price in the agents file, or here",
        lambda called: (
            f"{called('budget_cost')}: needs prices: give {agent!r} version {version} a price "
            f"in the agents file, or {called('price_in')} and {called('price_out')}"
        ),
    )


def kept_price(evaluation_id: str, current: Settings, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The stored prices are kept: the same given again is fine, and an evaluation stored
    without prices may be given them; other prices are InputError in one line."""
    price_in, price_out = (changes.get(name) for name in PRICES)
    if price_in is None and price_out is None:
        return {}
    if price_in is None or price_out is None:
        raise InputError(f"--resume {evaluation_id}: give --price-in and --price-out together")
    price = Price(price_in, price_out)
    if current.price is not None and current.price != price:
        shown = "/".join(current.price.texts())
        raise InputError(
            f"--resume {evaluation_id}: its prices are kept (stored: {shown} per million tokens "
            "in/out); start a new evaluation to price it otherwise"
        )
    return {"price": price}
