"""Prices for the one validator (``settings_text.check_settings``), for a resume (which keeps
the stored prices) and from a local version's own ``price``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.run.price import Price
from passk_tui.core.run.settings import Settings

#: The prices: stored with the evaluation and kept by a resume (one may be given that had none).
PRICES = ("price_in", "price_out")


class UnpairedPrice(InputError):
    """One price given without the other: ``field`` is the missing one, ``message`` what
    the form says beside it; the text is the CLI's line."""

    def __init__(self, field: str, message: str, line: str) -> None:
        super().__init__(line)
        self.field, self.message = field, message


def price_pair(price_in: Fraction | None, price_out: Fraction | None) -> Price | None:
    """The price given by its two fields (None: neither); UnpairedPrice for one alone."""
    if price_in is None and price_out is None:
        return None
    if price_in is None or price_out is None:
        missing, given = ("in", "out") if price_in is None else ("out", "in")
        raise UnpairedPrice(
            f"price_{missing}",
            f"give it with the price {given}",
            f"--price-{given}: give --price-{missing} too (prices come in pairs)",
        )
    return Price(price_in, price_out)


def with_local_price(settings: Settings, agents_file: bool = True) -> Settings:
    """The settings with a local version's own ``price`` when no flag gave one (``agents_file``
    False: no file names the agent, a Python callable); a ``--budget-cost`` with no price from
    either is bad input (InputError)."""
    price = settings.price
    if price is None and not settings.stack and agents_file:
        from passk_tui.targets.agents_file import find_agents_file, find_version

        explicit = Path(settings.agents_path) if settings.agents_path else None
        price = find_version(find_agents_file(explicit), settings.agent, settings.version).price
    if settings.budget_cost is not None and price is None:
        raise InputError(
            f"--budget-cost: needs prices: give {settings.agent!r} version {settings.version} "
            "a price in the agents file, or --price-in and --price-out"
        )
    return replace(settings, price=price)


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
