"""The gate read once for every face: verdicts, stderr lines and exit codes, intervals against scipy."""

from __future__ import annotations

from fractions import Fraction

import pytest
from scipy.stats import binomtest

from passk_tui.core.reading.gate_words import gate_lines
from passk_tui.core.stats.gating.gate import read
from passk_tui.core.stats.plan.gate_chance import attempts_to_settle
from passk_tui.core.stats.rates.figures import CaseFigures


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
    assert gate_lines(reading) == [
        "gate: zero: pass@3 0.00, 0 of 5 errored, is below --require 0.8"
    ]
    assert read(figures[:1], Fraction("0.8")).exit_code == 0


def test_no_gate_no_verdicts() -> None:
    reading = read([case("a", 5, 0)], None, 0.95)
    assert reading.cases[0].verdict is None and reading.exit_code == 0
    assert gate_lines(reading) == []


def test_confident_lines_name_failing_and_undecided_with_their_intervals() -> None:
    figures = [case("low", 20, 2), case("mid", 5, 3), case("high", 40, 40)]
    partial = CaseFigures("short", 2, 2, 0, 0, 3, planned=5)
    lines = gate_lines(read([*figures, partial], Fraction("0.8"), 0.9), "0.80")
    mid = attempts_to_settle(3, 5, Fraction("0.8"), 3, 0.9)
    assert lines == [
        "gate: low: fail: pass@3 90% CI 0.05-0.64, 0 of 20 errored, is below --require 0.80",
        "gate: mid: undecided: pass@3 90% CI 0.46-1.00, 0 of 5 errored, includes --require "
        f"0.80 (about {mid} more attempts would decide it half the time)",
        "gate: short: undecided: pass@3 is undefined with 2 attempts (fewer than 3)",
        "gate: pass@3 at or above 0.80 at 90% per case: 1 pass, 1 fail, 2 undecided",
    ]


def test_an_undefined_case_is_undecided_under_either_gate() -> None:
    partial = [CaseFigures("short", 2, 2, 0, 0, 3, planned=5)]
    assert read(partial, Fraction(1, 2), 0.95).exit_code == 4
    assert read(partial, Fraction(1, 2)).cases[0].verdict == "undecided"


def test_family_wise_reads_each_case_at_the_bonferroni_level_as_scipy_does() -> None:
    """20 cases at 95% for the suite: each read at 99.75%, its interval scipy's at that level."""
    figures = [case(f"c{i}", 40, 30 + i % 11) for i in range(20)]
    reading = read(figures, Fraction("0.9"), 0.95, family_wise=True)
    assert reading.family_wise and reading.promise == 0.95
    assert reading.level == pytest.approx(0.9975)
    for c in reading.cases:
        ci = binomtest(c.figures.passed, 40).proportion_ci(0.9975, method="exact")
        assert c.intervals.pass_at_k.low == pytest.approx(1 - (1 - ci.low) ** 3, abs=1e-9)
    assert gate_lines(reading)[-1].startswith(
        "gate: pass@3 at or above 0.9 at 95% whole suite (Bonferroni: each of 20 cases at 99.75%)"
    )
    per_case = read(figures, Fraction("0.9"), 0.95)
    assert per_case.level == 0.95 and "95% per case" in gate_lines(per_case)[-1]
    # the point gate and a gate-less reading have no suite promise to keep
    assert not read(figures, Fraction("0.9"), None, family_wise=True).family_wise


def test_a_case_at_the_line_is_too_close_to_settle() -> None:
    """pass@1 >= 0.5 with 50 of 100: its estimate is the line, no n decides it half the time."""
    line = gate_lines(read([CaseFigures("coin", 100, 50, 40, 10, 1)], Fraction(1, 2), 0.95))[0]
    assert line == (
        "gate: coin: undecided: pass@1 95% CI 0.39-0.61, 10 of 100 errored, includes --require "
        "0.5 (too close to the line: more than 10,000 more attempts to decide it)"
    )
