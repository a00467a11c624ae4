"""What an agent version's tokens cost: its prices per million tokens, and money kept exact.

Prices come from text (``--price-in 0.15``, or ``price = { input_per_mtok = 0.15 }`` in the
agents file) and are held as exact fractions of their decimal text, so 0.15 means 15/100 and
a cost is a whole number of tokens times that, over a million: a fraction whose denominator
divides a power of ten. Sums stay exact; a cost is rounded only where it is shown
(``money_text``) and written to a file as its exact decimal (``exact_decimal``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import over_bound
from passk_tui.core.text.decimals import exact_decimal, significant
from passk_tui.core.text.mentions import shorten

#: Tokens a price is quoted for.
PER = 1_000_000
#: The usage keys a Turn reports (runs-api.md; the openai target maps its own to these).
INPUT_TOKENS, OUTPUT_TOKENS = "input_tokens", "output_tokens"
#: Longest price text taken: more digits say nothing a bill can tell apart.
MAX_PRICE_CHARS = 40
#: The largest power of ten a price or budget may be written with, either way.
MAX_EXPONENT = 15


def tokens_of(usage: Any, key: str) -> int | None:
    """A token count from a Turn's usage, or None when absent, not a whole number >= 0, or past
    any Turn's count (``outside_values.MAX_TOKENS``: a store written before that bound may hold
    one, and a reader must not overflow on it)."""
    if not isinstance(usage, dict):
        return None
    value = usage.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or over_bound(value):
        return None
    return value


@dataclass(frozen=True, slots=True)
class Price:
    """An agent version's price per million input and output tokens, exact."""

    input_per_mtok: Fraction
    output_per_mtok: Fraction

    def cost(self, usage: Any) -> Fraction | None:
        """What one Turn's usage cost; None when it reported no usage (unknown, never 0).

        A usage that reports one count and not the other is priced on what it reports.
        """
        tokens_in, tokens_out = tokens_of(usage, INPUT_TOKENS), tokens_of(usage, OUTPUT_TOKENS)
        if tokens_in is None and tokens_out is None:
            return None
        return self.of_tokens(tokens_in or 0, tokens_out or 0)

    def of_tokens(self, tokens_in: Fraction | int, tokens_out: Fraction | int) -> Fraction:
        """What this many tokens in and out cost (a plan's may be a mean, a fraction)."""
        return (tokens_in * self.input_per_mtok + tokens_out * self.output_per_mtok) / PER

    def texts(self) -> tuple[str, str]:
        """The prices as exact decimal text, as stored and exported (``0.15``)."""
        return exact_decimal(self.input_per_mtok), exact_decimal(self.output_per_mtok)


def parse_price(text: str) -> Fraction:
    """A price per million tokens: a decimal number >= 0, as an exact fraction (names no flag)."""
    return _parse_amount(text, "a price per million tokens")


def parse_tokens(text: str) -> Fraction:
    """Tokens expected per attempt (``plan --tokens-in``): a decimal number >= 0, exact."""
    return _parse_amount(text, "a number of tokens")


def _parse_amount(text: str, what: str) -> Fraction:
    stripped = text.strip()
    if len(stripped) > MAX_PRICE_CHARS:
        raise InputError(f"must be a number of at most {MAX_PRICE_CHARS} characters")
    try:
        value = Decimal(stripped)
    except ArithmeticError:
        raise InputError(f"must be {what}, got {shorten(text)!r}") from None
    shown = repr(shorten(text))
    if not value.is_finite() or value < 0:
        raise InputError(f"must be {what} of 0 or more, got {shown}")
    # 1e-999999 as an exact fraction is a million-digit integer: no amount is that small.
    if value and not -MAX_EXPONENT <= value.adjusted() <= MAX_EXPONENT:
        raise InputError(f"must be between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT}")
    return _amount(Fraction(value), shown, what)


def _amount(value: Fraction, shown: str, what: str) -> Fraction:
    """An amount kept exact: 0 or more, within MAX_EXPONENT powers of ten either way, and a
    decimal (it is stored and exported as its exact decimal text)."""
    if value < 0:
        raise InputError(f"must be {what} of 0 or more, got {shown}")
    if value and not Fraction(1, 10**MAX_EXPONENT) <= value < 10 ** (MAX_EXPONENT + 1):
        raise InputError(f"must be between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT}")
    denominator = value.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    if denominator != 1:
        raise InputError(f"must be {what} in decimals, got {shown}")
    return value


def price_amount(value: Fraction, shown: str) -> Fraction:
    """A price given typed (``evaluate(price_in=0.15)``), held to its flag's rules."""
    return _amount(value, shown, "a price per million tokens")


def _more_than_zero(value: Fraction) -> Fraction:
    if value == 0:
        raise InputError("must be more than 0")
    return value


def parse_money(text: str) -> Fraction:
    """A budget in money (``--budget-cost 2.50``): a decimal number > 0, exact."""
    return _more_than_zero(parse_price(text))


def money_amount(value: Fraction, shown: str) -> Fraction:
    """A budget in money given typed, held to its flag's rules."""
    return _more_than_zero(price_amount(value, shown))


def money_text(value: Fraction | None) -> str:
    """A cost as a person reads it: ``$12.34``, ``$0.0123``, ``$0.0000080``; ``-`` for unknown.

    Rounded here only, half up on the exact value: cents from a dollar up, four
    places below it, and a cost below $0.0001 to its first two significant digits
    rather than ``$0.0000``.
    """
    if value is None:
        return "-"
    if value == 0:
        return "$0"
    shown = significant(abs(value), 2, least=2 if abs(value) >= 1 else 4)
    return f"{'-' if value < 0 else ''}${shown}"


def price_from_texts(texts: tuple[str | None, str | None]) -> Price | None:
    """A price stored as its two decimal texts; None when none was stored."""
    given_in, given_out = texts
    if given_in is None or given_out is None:
        return None
    return Price(Fraction(given_in), Fraction(given_out))


def price_text(price: Price) -> str:
    """The prices as a person reads them: ``0.15 in / 0.60 out`` (per million tokens)."""
    price_in, price_out = price.texts()
    return f"{price_in} in / {price_out} out"
