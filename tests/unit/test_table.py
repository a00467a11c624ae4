"""The plain table, to the character, and the gate on exact figures."""

from __future__ import annotations

from fractions import Fraction

from passk_tui.core.render.table import plain_table
from passk_tui.core.stats.gating.gate import read
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.summary import below_gate

SEED = """\
case        passed  wrong  errored  pass@1  pass@3  all passed
----------  ------  -----  -------  ------  ------  ----------
arithmetic  3/5     2      0        0.60    1.00    no
json-shape  0/5     4      1        0.00    0.00    no
summary     5/5     0      0        1.00    1.00    yes
"""


def seed_figures() -> list[CaseFigures]:
    return [
        CaseFigures("arithmetic", 5, 3, 2, 0, 3),
        CaseFigures("json-shape", 5, 0, 4, 1, 3),
        CaseFigures("summary", 5, 5, 0, 0, 3),
    ]


def test_seed_table_exactly() -> None:
    assert plain_table(seed_figures(), 3) == SEED


def test_header_names_the_real_k_and_widens() -> None:
    figures = [CaseFigures("a-much-longer-case-name", 10, 10, 0, 0, 10)]
    assert plain_table(figures, 10).splitlines() == [
        "case                     passed  wrong  errored  pass@1  pass@10  all passed",
        "-----------------------  ------  -----  -------  ------  -------  ----------",
        "a-much-longer-case-name  10/10   0      0        1.00    1.00     yes",
    ]


def test_gate_compares_exact_figures() -> None:
    # pass@1 of 899/1000 shows as 0.90 but fails a 0.9 gate.
    close = CaseFigures("close", 1000, 899, 101, 0, 1)
    exact = CaseFigures("exact", 10, 9, 1, 0, 1)
    assert [f.name for f in below_gate([close, exact], Fraction("0.9"))] == ["close"]


def test_a_partial_run_shows_undefined_figures_as_dashes() -> None:
    """Mid-run or cancelled: 1 of 1 passed is not 1.00, and an unfinished case is not "yes"."""
    figures = [
        CaseFigures("one-in", 1, 1, 0, 0, 3, planned=5),
        CaseFigures("none-in", 0, 0, 0, 0, 3, planned=5),
        CaseFigures("four-in", 4, 4, 0, 0, 3, planned=5),
        CaseFigures("done", 5, 5, 0, 0, 3, planned=5),
    ]
    assert plain_table(figures, 3).splitlines() == [
        "case     passed  wrong  errored  pass@1  pass@3  all passed",
        "-------  ------  -----  -------  ------  ------  ----------",
        "one-in   1/1     0      0        1.00    -       -",
        "none-in  0/0     0      0        -       -       -",
        "four-in  4/4     0      0        1.00    1.00    -",
        "done     5/5     0      0        1.00    1.00    yes",
    ]


def test_confidence_adds_the_interval_and_gate_columns_exactly() -> None:
    reading = read(seed_figures(), Fraction("0.9"), 0.95)
    assert plain_table(seed_figures(), 3, reading) == (
        "case        passed  wrong  errored  pass@1  pass@3  all passed  pass@3 95% CI  gate\n"
        "----------  ------  -----  -------  ------  ------  ----------  -------------  ---------\n"
        "arithmetic  3/5     2      0        0.60    1.00    no          0.37-1.00      undecided\n"
        "json-shape  0/5     4      1        0.00    0.00    no          0.00-0.90      fail\n"
        "summary     5/5     0      0        1.00    1.00    yes         0.85-1.00      undecided\n"
    )


def test_confidence_without_require_adds_only_the_interval() -> None:
    reading = read(seed_figures(), None, 0.9)
    header = plain_table(seed_figures(), 3, reading).splitlines()[0]
    assert header.endswith("all passed  pass@3 90% CI")


def test_point_gate_leaves_undefined_cases_alone() -> None:
    partial = CaseFigures("p", 2, 0, 2, 0, 3, planned=5)
    assert below_gate([partial], Fraction(1, 2)) == []
