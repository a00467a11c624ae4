"""The one place a number becomes decimal digits, so every face shows a figure the same way.

People read 0.625 as 0.63: a figure is rounded half up (away from zero) on its EXACT
value, never by Python's float formatting, which rounds the binary value half to even
(``f"{0.625:.2f}"`` is ``0.62``). A ``Fraction`` is exact already; a float is taken
as the fraction it stores.

Interval ends are rounded outward instead (``DOWN`` the low end, ``UP`` the high
one), so a shown interval always contains the computed one. Ends come from float
computations (bisection on the incomplete beta function, ``1-(1-p)^k``) whose noise
is a few hundred ulps at most, so an end that is mathematically on a cent (0.95 for
0 of 1 at 90%) may be stored a hair above it, and ceiling that hair would show the
interval a cent wider than it is. So a float within ``NOISE`` (relative, and absolute
near 0) of a grid point of half the last place is taken as that point before
rounding: that moves an UP/DOWN end only when it sits on a cent, and a nearest
figure only when it sits on a half. A ``Fraction`` is never snapped: it is exact.
"""

from __future__ import annotations

from fractions import Fraction
from math import isclose
from typing import Literal

#: Which way the last place goes: half up (away from zero), toward -inf, toward +inf.
Rounding = Literal["nearest", "down", "up"]

#: How far a float may sit from a grid point and still be that point: 1e-12, thousands of
#: ulps near 1 and far above the measured noise of the interval computations (149 ulps
#: at worst against scipy's beta.ppf), far below anything a reader could tell apart.
NOISE = 1e-12


def fixed(
    value: Fraction | float | int,
    places: int = 2,
    rounding: Rounding = "nearest",
    grouped: bool = False,
) -> str:
    """``value`` with exactly ``places`` decimals (``grouped``: thousands separated by commas)."""
    # On the exact ratio's two integers: the same digits as Fraction arithmetic, without a
    # Fraction made per operation (a table of 10,000 cases rounds 20,000 figures).
    numerator, denominator = _exact(value, places)
    scaled = numerator * 10**places
    if rounding == "down":
        whole = scaled // denominator
    elif rounding == "up":
        whole = -(-scaled // denominator)
    else:  # floor(|x| + 1/2), away from zero
        whole = (2 * abs(scaled) + denominator) // (2 * denominator) * (-1 if scaled < 0 else 1)
    units, part = divmod(abs(whole), 10**places)
    sign = "-" if numerator < 0 else ""  # -0.001 is -0.00, as the reference and Python write it
    digits = f"{units:,}" if grouped else str(units)
    return f"{sign}{digits}.{part:0{places}d}" if places else f"{sign}{digits}"


def _exact(value: Fraction | float | int, places: int) -> tuple[int, int]:
    """The value as an exact ratio (numerator, positive denominator); a float on a half-step
    grid point (within NOISE) is that point."""
    if isinstance(value, int):
        return int(value), 1
    if not isinstance(value, float):
        exact = value if isinstance(value, Fraction) else Fraction(value)
        return exact.numerator, exact.denominator
    steps = 2 * 10**places
    nearest = round(value * steps)
    if isclose(value, nearest / steps, rel_tol=NOISE, abs_tol=NOISE):
        return nearest, steps
    return value.as_integer_ratio()


def significant(value: Fraction | float, digits: int = 2, least: int = 0, most: int = 12) -> str:
    """``value`` with at least ``least`` decimals, more until ``digits`` significant ones show
    (``0.0093`` at two digits), at most ``most``; rounded as ``fixed`` rounds."""
    size = abs(Fraction(value))
    places = least
    while places < most and size < Fraction(10 ** (digits - 1), 10**places):
        places += 1
    return fixed(value, places)


def exact_decimal(value: Fraction) -> str:
    """An exact money fraction as its full decimal text (``0.000123``); every cost has one.

    A cost is a sum of (whole tokens x decimal price) / 10**6, so its denominator has
    no prime factor but 2 and 5; such a fraction is a finite decimal, written in full.
    """
    denominator, twos, fives = value.denominator, 0, 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        raise ValueError(f"{value} has no finite decimal")
    places = max(twos, fives)
    scaled = value.numerator * 10**places // value.denominator
    digits = str(abs(scaled)).rjust(places + 1, "0")
    whole, fraction = digits[: len(digits) - places], digits[len(digits) - places :]
    sign = "-" if scaled < 0 else ""
    return f"{sign}{whole}.{fraction}" if places else f"{sign}{whole}"
