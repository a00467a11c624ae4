"""The gate read once for every face: verdicts, stderr lines and exit codes, intervals against scipy."""

from __future__ import annotations

from fractions import Fraction

import pytest
from scipy.stats import binomtest

from passk_tui.core.stats.figures import CaseFigures
from passk_tui.core.stats.gate import gate_lines, read


def case(name: str, n: int, c: int, k: int = 3) -> CaseFigures:
    return CaseFigures(name, n, c, n - c, 0, k, planned=n)


def test_confident_verdicts_read_the_scipy_interval() -> None:
    figures = [case("low", 20, 2), case("mid", 5, 3), case("high", 40, 40)]
    reading = read(figures, Fraction("0.8"), 0.95)
    assert [c.verdict for c in reading.cases] == ["fail", "undecided", "pass"]
    for c in reading.cases:
        ci = binomtest(c.figures.passed, c.figures.n).proportion_ci(0.95, method="exact")
        assert c.intervals.pass_at_k.low == pytest.approx(1 - (1 - ci.low) ** 3, abs=1e-9)
        assert c.intervals.pass_at_k.high == pytest.approx(1 - (1 - ci.high) ** 3, abs=1e-9)
        assert c.intervals.pass_hat_k.low == pytest.approx(ci.low**3, abs=1e-9)
    assert reading.exit_code == 1 and reading.decided == 2


@pytest.mark.parametrize(
    ("counts", "code"),
    [([(40, 40)], 0), ([(40, 40), (5, 3)], 4), ([(5, 3), (20, 0)], 1), ([], 0)],
)
def test_exit_codes(counts: list[tuple[int, int]], code: int) -> None:
    figures = [case(f"c{i}", n, c) for i, (n, c) in enumerate(counts)]
    assert read(figures, Fraction("0.8"), 0.95).exit_code == code


def test_point_gate_is_the_seeds() -> None:
    """Without --confidence the 4/5 case passes a 0.8 gate on its point pass@3 of 1.00, as before."""
    figures = [case("four", 5, 4), case("zero", 5, 0)]
    reading = read(figures, Fraction("0.8"))
    assert [c.verdict for c in reading.cases] == ["pass", "fail"]
    assert reading.exit_code == 1 and not reading.confident and reading.level == 0.95
    assert gate_lines(reading) == ["gate: zero: pass@3 0.00 is below --require 0.8"]
    assert read(figures[:1], Fraction("0.8")).exit_code == 0


def test_no_gate_no_verdicts() -> None:
    reading = read([case("a", 5, 0)], None, 0.95)
    assert reading.cases[0].verdict is None and reading.exit_code == 0
    assert gate_lines(reading) == []


def test_confident_lines_name_failing_and_undecided_with_their_intervals() -> None:
    figures = [case("low", 20, 2), case("mid", 5, 3), case("high", 40, 40)]
    partial = CaseFigures("short", 2, 2, 0, 0, 3, planned=5)
    lines = gate_lines(read([*figures, partial], Fraction("0.8"), 0.9), "0.80")
    assert lines == [
        "gate: low: fail: pass@3 90% CI 0.05-0.64 is below --require 0.80",
        "gate: mid: undecided: pass@3 90% CI 0.46-1.00 includes --require 0.80 "
        "(more attempts would settle it)",
        "gate: short: undecided: pass@3 is undefined with 2 attempts (fewer than 3)",
    ]


def test_an_undefined_case_is_undecided_under_either_gate() -> None:
    partial = [CaseFigures("short", 2, 2, 0, 0, 3, planned=5)]
    assert read(partial, Fraction(1, 2), 0.95).exit_code == 4
    assert read(partial, Fraction(1, 2)).cases[0].verdict == "undecided"
