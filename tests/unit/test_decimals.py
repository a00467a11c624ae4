"""Every shown figure is rounded half up on its exact value, and intervals outward but not wider.

Checked against independent references: ``decimal`` with ROUND_HALF_UP on the exact
fraction, and scipy's beta quantiles for the Clopper-Pearson ends.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from math import ceil, floor, isclose
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta

from passk_tui.core.inputs.price import money_text
from passk_tui.core.render.compare_text import p_text, signed
from passk_tui.core.stats.rates.intervals import case_intervals
from passk_tui.core.text.decimals import NOISE, fixed
from passk_tui.core.text.figure_text import interval_text, two_decimals


def _half_up(value: Fraction, places: int) -> str:
    """The reference: decimal's ROUND_HALF_UP (away from zero) on the exact quotient."""
    with localcontext() as context:
        context.prec = 80
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(5, 8), "0.63"),
        (Fraction(1, 8), "0.13"),
        (Fraction(3, 8), "0.38"),
        (Fraction(7, 8), "0.88"),
        (Fraction(1, 3), "0.33"),
        (0.625, "0.63"),  # the float holds 5/8 exactly; f"{0.625:.2f}" says 0.62
        (0.125, "0.13"),
    ],
)
def test_a_figure_on_a_half_rounds_up(value: Fraction | float, shown: str) -> None:
    assert two_decimals(value) == shown


def test_a_signed_change_rounds_away_from_zero_alike_on_both_sides() -> None:
    assert signed(Fraction(1, 8)) == "+0.13"
    assert signed(Fraction(-1, 8)) == "-0.13"
    assert p_text(Fraction(25, 1000)) == "0.03"  # 0.025 as a float would be 0.03 by luck only
    assert p_text(Fraction(45, 10000)) == "0.005"
    assert money_text(Fraction(125, 10000)) == "$0.0125"
    assert money_text(Fraction(25, 1000000)) == "$0.000025"
    assert money_text(Fraction(1005, 1000)) == "$1.01"  # half to even said $1.00


@settings(deadline=None)
@given(
    st.fractions(min_value=-1000, max_value=1000, max_denominator=10**6),
    st.integers(min_value=0, max_value=6),
)
def test_fixed_is_half_up_on_the_exact_fraction(value: Fraction, places: int) -> None:
    assert fixed(value, places) == _half_up(value, places)


@settings(deadline=None)
@given(st.integers(min_value=0, max_value=800), st.sampled_from([1, 8, 16, 40, 80, 200, 800]))
def test_every_share_of_attempts_matches_the_reference(passed: int, n: int) -> None:
    share = Fraction(min(passed, n), n)
    assert two_decimals(share) == _half_up(share, 2)
    assert two_decimals(float(share)) == _half_up(share, 2)


def _fixed_by_fractions(
    value: Fraction | float | int, places: int, rounding: str, grouped: bool
) -> str:
    """The reference for ``fixed``'s integer arithmetic: the same rules, each step a Fraction
    (as ``fixed`` computed it before, and Python's Fraction rounds no digit)."""
    if isinstance(value, float):
        steps = 2 * 10**places
        nearest = round(value * steps)
        snapped = isclose(value, nearest / steps, rel_tol=NOISE, abs_tol=NOISE)
        exact = Fraction(nearest, steps) if snapped else Fraction(value)
    else:
        exact = Fraction(value)
    scaled = exact * 10**places
    if rounding == "down":
        whole = floor(scaled)
    elif rounding == "up":
        whole = ceil(scaled)
    else:
        whole = floor(abs(scaled) + Fraction(1, 2)) * (-1 if scaled < 0 else 1)
    units, part = divmod(abs(whole), 10**places)
    sign = "-" if exact < 0 else ""
    digits = f"{units:,}" if grouped else str(units)
    return f"{sign}{digits}.{part:0{places}d}" if places else f"{sign}{digits}"


#: Values of every kind ``fixed`` takes: fractions (small and huge denominators), floats (on a
#: half step within NOISE, a hair off it, anywhere), integers, and exact half-up ties.
_TIES = st.builds(
    lambda whole, places, sign: Fraction(sign * (2 * whole + 1), 2 * 10**places),
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=0, max_value=6),
    st.sampled_from([1, -1]),
)
_VALUES = st.one_of(
    st.fractions(max_denominator=10**6),
    st.fractions(min_value=-10, max_value=10),
    _TIES,
    _TIES.map(float),
    _TIES.map(lambda tie: float(tie) + 1e-13),
    st.floats(min_value=-1e290, max_value=1e290),  # past it value * steps overflows in both
    st.floats(min_value=-1e6, max_value=1e6),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0.0, -0.0, -0.001, 0.005, 0.015, 0.125, 0.625, 2.675, 1e-300, -5e-324]),
)


@settings(deadline=None, max_examples=3000)
@given(
    _VALUES,
    st.integers(min_value=0, max_value=6),
    st.sampled_from(["nearest", "down", "up"]),
    st.booleans(),
)
def test_fixed_gives_the_digits_of_the_fraction_arithmetic(
    value: Fraction | float | int, places: int, rounding: str, grouped: bool
) -> None:
    expected = _fixed_by_fractions(value, places, rounding, grouped)
    assert fixed(value, places, rounding, grouped) == expected  # type: ignore[arg-type]


def test_fixed_on_every_share_of_up_to_200_attempts_and_its_float() -> None:
    """What a table of many cases rounds: k/n for every n <= 200, exact and as a float."""
    for n in range(1, 201):
        for passed in range(n + 1):
            for value in (Fraction(passed, n), passed / n):
                for rounding in ("nearest", "down", "up"):
                    expected = _fixed_by_fractions(value, 2, rounding, False)
                    assert fixed(value, 2, rounding) == expected  # type: ignore[arg-type]


def _cp(passed: int, n: int, confidence: float) -> tuple[float, float]:
    """The reference Clopper-Pearson ends: scipy's beta quantiles."""
    tail = (1 - confidence) / 2
    low = 0.0 if passed == 0 else float(beta.ppf(tail, passed, n - passed + 1))
    high = 1.0 if passed == n else float(beta.ppf(1 - tail, passed + 1, n - passed))
    return low, high


def _on_cent(value: float) -> int | None:
    cents = round(value * 100)
    return cents if isclose(value, cents / 100, rel_tol=1e-10, abs_tol=1e-10) else None


def _check_end(shown: str, reference: float, low: bool) -> None:
    """Outward (contains the reference), never a cent wider, and on the cent when it is one."""
    value = Fraction(shown)
    cent = _on_cent(reference)
    if cent is not None:
        assert value == Fraction(cent, 100), (shown, reference)
    elif low:
        assert value <= Fraction(reference) < value + Fraction(1, 100), (shown, reference)
    else:
        assert value - Fraction(1, 100) < Fraction(reference) <= value, (shown, reference)


CONFIDENCES = [0.5, 0.6, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995]


@settings(deadline=None)
@given(
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=0, max_value=30),
    st.sampled_from([1, 2, 3, 5]),
    st.sampled_from(CONFIDENCES),
)
def test_interval_ends_round_outward_but_not_past_an_exact_cent(
    n: int, passed: int, k: int, confidence: float
) -> None:
    passed, k = min(passed, n), min(k, n)
    low, high = _cp(passed, n, confidence)
    shown = case_intervals(passed, n, k, confidence)
    references = {
        shown.rate: (low, high),
        shown.pass_at_k: (1 - (1 - low) ** k, 1 - (1 - high) ** k),
        shown.pass_hat_k: (low**k, high**k),
    }
    for interval, (ref_low, ref_high) in references.items():
        text_low, text_high = interval_text(interval).split("-")
        _check_end(text_low, ref_low, low=True)
        _check_end(text_high, ref_high, low=False)


@pytest.mark.parametrize(
    ("passed", "n", "k", "confidence", "figure", "shown"),
    [
        # 0 of 3 at 90%: 1-U = 0.05^(1/3), so pass@3's upper end is 0.95 exactly (was 0.96).
        (0, 3, 3, 0.9, "pass_at_k", "0.00-0.95"),
        # 3 of 3 at 90%: L = 0.05^(1/3), so pass^3's lower end is 0.05 exactly (was 0.04).
        (3, 3, 3, 0.9, "pass_hat_k", "0.05-1.00"),
        # 1 of 1 at 80%: L = 0.10 exactly (was 0.09 for pass@1).
        (1, 1, 1, 0.8, "pass_at_k", "0.10-1.00"),
        # 2 of 3 at 98%: U = 0.99^(1/3), so pass^3's upper end is 0.99 exactly (was 1.00).
        (2, 3, 3, 0.98, "pass_hat_k", "0.00-0.99"),
    ],
)
def test_an_interval_end_exactly_on_a_cent_is_shown_on_it(
    passed: int, n: int, k: int, confidence: float, figure: str, shown: str
) -> None:
    assert interval_text(getattr(case_intervals(passed, n, k, confidence), figure)) == shown


def test_a_float_a_real_step_off_a_cent_still_rounds_outward() -> None:
    assert fixed(0.95 + 1e-9, 2, "up") == "0.96"
    assert fixed(0.95 - 1e-9, 2, "down") == "0.94"
    assert fixed(0.95 + 1e-15, 2, "up") == "0.95"
    assert fixed(1234.5, 0, grouped=True) == "1,235"


#: Fixed-point formats left outside ``fixed``, each for a reason: not a figure a person reads.
NOT_FIGURES = {
    "passk_tui/reports/html_page.py",  # CSS geometry (bar ends in %, block heights in rem)
    "passk_tui/targets/stack.py",  # a wait in seconds sent to the stack in a URL
    "passk_tui/targets/reachability.py",  # whole seconds in a stall message
}


def test_no_figure_is_formatted_outside_the_one_function() -> None:
    """``:.2f`` and its kin round the binary value half to even; only ``fixed`` may turn a number
    into decimals (``core.text.decimals``)."""
    root = Path(__file__).resolve().parents[2]
    spec = re.compile(r"\{[^{}]*:[^{}]*\.\d+[fF%]\}|%\.\d+f")
    found = [
        f"{path.relative_to(root)}:{number}: {line.strip()}"
        for path in sorted((root / "passk_tui").rglob("*.py"))
        if path.relative_to(root).as_posix()
        not in NOT_FIGURES | {"passk_tui/core/text/decimals.py"}
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if spec.search(line)
    ]
    assert not found, found
