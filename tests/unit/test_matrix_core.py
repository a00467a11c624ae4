"""The matrix's pure parts: target lists, labels, Holm over every pair, cells and orders."""

from __future__ import annotations

from fractions import Fraction

import pytest
from statsmodels.stats.multitest import multipletests

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.target_list import (
    MatrixTarget,
    matrix_targets,
    parse_agents,
    parse_versions,
    target_kind,
    target_labels,
)
from passk_tui.core.render.matrix.cells import (
    DIFFERENCE,
    FILE_ORDER,
    Band,
    band,
    cell_text,
    interval_scale,
    matrix_order,
)
from passk_tui.core.stats.comparing.compare import Side, compare
from passk_tui.core.stats.comparing.matrix import compare_matrix
from passk_tui.core.stats.gating.gate import read
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.intervals import ClopperPearson


def figures(name: str, passed: int, n: int = 10, k: int = 3) -> CaseFigures:
    return CaseFigures(name, n, passed, n - passed, 0, k, n)


def test_lists_parse_refuse_repeats_and_empty_items() -> None:
    assert parse_versions("1, 2,3") == (1, 2, 3)
    assert parse_versions("4") == (4,)
    assert parse_agents("a,b") == ("a", "b")
    with pytest.raises(InputError, match="2 is given twice"):
        parse_versions("1,2,02")  # the same version however written
    with pytest.raises(InputError, match="an empty item"):
        parse_versions("1,")
    with pytest.raises(InputError):
        parse_versions("1,x")


def test_targets_cross_agents_first_and_are_named_by_what_differs() -> None:
    crossed = matrix_targets(("a", "b"), (1, 2))
    assert crossed == [
        MatrixTarget("a", 1),
        MatrixTarget("a", 2),
        MatrixTarget("b", 1),
        MatrixTarget("b", 2),
    ]
    assert target_labels(crossed) == ["a v1", "a v2", "b v1", "b v2"]
    assert target_labels(matrix_targets(("a",), (1, 2))) == ["v1", "v2"]
    assert target_labels(matrix_targets(("a", "b"), (3,))) == ["a", "b"]
    # A line about each says what one is, as the labels name them.
    assert target_kind(crossed) == "target"
    assert target_kind(matrix_targets(("a",), (1, 2))) == "version"
    assert target_kind(matrix_targets(("a", "b"), (3,))) == "agent"


def test_holm_runs_over_every_case_of_every_pair() -> None:
    first = [figures("x", 10), figures("y", 5), figures("z", 2)]
    second = [figures("x", 1), figures("y", 5), figures("z", 4)]
    third = [figures("x", 0), figures("y", 6), figures("z", 10)]
    sides = [Side(label, 3, f) for label, f in (("A", first), ("B", second), ("C", third))]
    matrix = compare_matrix(sides, Fraction(95, 100))
    raw = [float(c.p_raw) for pair in matrix.pairs for c in pair.cases]
    adjusted = [float(c.p) for pair in matrix.pairs for c in pair.cases]
    assert adjusted == pytest.approx(list(multipletests(raw, method="holm")[1]), rel=1e-12)
    # The pair alone adjusts over its own three cases: its p is no larger.
    alone = compare(sides[0], sides[2])
    assert all(a.p <= m.p for a, m in zip(alone.cases, matrix.pairs[1].cases, strict=True))
    assert [str(c.verdict) for c in matrix.pairs[1].cases] == ["regressed", "unclear", "improved"]
    assert matrix.fails_on_regression


def test_cells_say_their_band_by_symbol_and_the_gate_by_mark() -> None:
    reading = read([figures("hi", 10), figures("mid", 3), figures("lo", 0), figures("new", 1, n=2)],
                   Fraction(9, 10), 0.95, ClopperPearson())  # fmt: skip
    hi, mid, lo, new = reading.cases
    assert [band(c) for c in reading.cases] == [Band.HIGH, Band.MID, Band.LOW, Band.NONE]
    assert cell_text(hi) == "● 1.00 0.97-1.00 ✓"  # pass@3 of 10/10
    assert cell_text(mid, interval=False) == "◐ 0.71 ?"  # the confident gate: undecided
    assert cell_text(lo).startswith("○ 0.00 0.00-") and cell_text(lo).endswith("✗")
    assert cell_text(new, interval=False).startswith("· -")
    assert interval_scale(hi) == "·········┃"
    assert interval_scale(mid) == "·━━━━━━┃━━"  # 0.18-0.96, at 0.71
    assert interval_scale(new) == " " * 10


def test_orders_file_each_target_weakest_first_and_largest_difference() -> None:
    a = read([figures("s", 9), figures("d", 10), figures("c", 2)], None, 0.95, ClopperPearson())
    b = read([figures("s", 9), figures("d", 0), figures("c", 4)], None, 0.95, ClopperPearson())
    rows = [[a.cases[i], b.cases[i]] for i in range(3)]
    assert matrix_order(rows, FILE_ORDER) == [0, 1, 2]
    assert matrix_order(rows, 0) == [2, 0, 1]  # c (0.53) before s and d (1.00, file order)
    assert matrix_order(rows, 1) == [1, 2, 0]
    assert matrix_order(rows, DIFFERENCE) == [1, 2, 0]


def test_a_matrix_names_its_adjustment_in_place_of_the_pairs() -> None:
    a, b = Side("A", 3, [figures("x", 1)]), Side("B", 3, [figures("x", 2)])
    assert compare(a, b).method.endswith("Holm-adjusted across the compared cases")
    (pair,) = compare_matrix([a, b]).pairs
    assert pair.method == (
        "Fisher's exact test, two-sided, Holm-adjusted over every case of every pair"
    )
    looked = Side("A", 3, [figures("x", 1)], looked=True)
    (anytime,) = compare_matrix([looked, b]).pairs
    assert anytime.method.startswith("anytime-valid e-value test")
    assert anytime.method.endswith("Holm-adjusted over every case of every pair")
