"""The plain table, to the character, and the gate on exact figures."""

from __future__ import annotations

from fractions import Fraction

from passk_tui.core.figures import CaseFigures
from passk_tui.core.table import below_gate, plain_table

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
