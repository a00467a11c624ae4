"""A setting's value as the validator takes it, whoever gave it: text (a flag, the form, an
ini file) through its field's parser, a typed value (``evaluate(attempts=5)``) checked by
its kind and its field's rule, so that both meet the same rules and the same words.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.field import Field, Kind
from passk_tui.core.inputs.settings import storable_whole
from passk_tui.core.text.mentions import shorten, type_name


def typed_value(field: Field, given: object) -> Any:
    """``given`` as ``field``'s value; InputError naming no field (the caller names it)."""
    if isinstance(given, str) and field.kind is not Kind.SWITCH:
        return given if field.parse is None else field.parse(given)
    shown = shorten(str(given))
    value = _of_kind(field.kind, given, shown)
    return value if field.rule is None else field.rule(value, shown)


def _of_kind(kind: Kind, given: object, shown: str) -> Any:
    """``given`` as a value of ``kind``: a whole number stays one, a number a float, an exact
    value a Fraction (a float by its shortest decimal: 0.15 is 15/100, as its text would be)."""
    if isinstance(given, bool):
        if kind is Kind.SWITCH:
            return given
    elif isinstance(given, int | float | Fraction | Decimal):
        if kind is Kind.WHOLE and isinstance(given, int):
            return storable_whole(given, shown)
        if kind is Kind.NUMBER and isinstance(given, int | float):
            return float(given)
        if kind in (Kind.RATIO, Kind.MONEY):
            if isinstance(given, float | Decimal) and not math.isfinite(given):
                raise InputError(f"must be a finite number, got {shown}")
            return Fraction(repr(given)) if isinstance(given, float) else Fraction(given)
    wanted = {
        Kind.SWITCH: "True or False",
        Kind.WHOLE: "a whole number",
        Kind.TEXT: "text",
    }.get(kind, "a number")
    number = isinstance(given, int | float | Fraction | Decimal) and not isinstance(given, bool)
    got = shown if number else type_name(given)
    raise InputError(f"must be {wanted}, got {got}")
