"""Flakiness over time, checked by hand and against scipy's fisher_exact and statsmodels' Holm."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from scipy.stats import binomtest, fisher_exact
from statsmodels.stats.multitest import multipletests

from passk_tui.core.stats.comparing.anytime_compare import ANYTIME_METHOD
from passk_tui.core.stats.comparing.compare import FISHER_METHOD, ChangeVerdict
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON
from passk_tui.core.stats.trends.flakiness import Measurement, flakiness, pooled
from passk_tui.core.stats.trends.trend import case_trend
from passk_tui.store import Store
from passk_tui.store.trends import agent_series
from tests.support.nightly import store_nightly_series


def measured(
    version: int,
    counts: dict[str, tuple[int, int]],
    verdicts: dict[str, bool] | None = None,
    *,
    looked: bool = False,
    created: float = 0.0,
) -> Measurement:
    """An evaluation of ``version`` with (passed, n) per case; verdict all passed by default."""
    figures = tuple(
        CaseFigures(name, n, passed, n - passed, 0, 1) for name, (passed, n) in counts.items()
    )
    if verdicts is None:
        verdicts = {name: passed == n for name, (passed, n) in counts.items()}
    return Measurement(
        f"ev_{created}", created, version, figures, verdicts, looked, CLOPPER_PEARSON
    )


def test_only_changes_within_a_version_count_and_cases_without_a_verdict_are_skipped() -> None:
    series = [
        measured(1, {"a": (5, 5), "b": (5, 5)}),
        measured(1, {"a": (4, 5), "b": (5, 5)}, {"a": False}),  # b: no verdict this time
        measured(1, {"a": (5, 5), "b": (5, 5)}),
        measured(2, {"a": (0, 5), "b": (0, 5)}),  # both "change" with the version: not flaky
        measured(2, {"a": (0, 5), "b": (5, 5)}),
    ]
    rows = {c.name: c for c in flakiness(series).cases}
    assert (rows["a"].evaluations, rows["a"].verdict_changes, rows["a"].flaky) == (5, 2, True)
    assert (rows["b"].evaluations, rows["b"].verdict_changes, rows["b"].flaky) == (5, 1, True)


def test_versions_change_in_the_order_of_their_numbers_and_a_case_needs_both() -> None:
    series = [
        measured(3, {"a": (5, 5)}),
        measured(1, {"a": (5, 5), "only-1": (5, 5)}),
        measured(2, {"b": (5, 5)}),
    ]
    changes = flakiness(series).changes
    assert [(c.before, c.after) for c in changes] == [(1, 2), (2, 3)]
    assert all(c.comparison is None and c.moved == [] for c in changes)


@pytest.mark.parametrize("seed", range(12))
def test_each_version_change_is_fisher_on_the_pooled_attempts_holm_over_cases(seed: int) -> None:
    rng = random.Random(seed)
    names = [f"case-{i}" for i in range(rng.randint(2, 8))]
    rates = {v: {name: rng.choice([0.1, 0.5, 0.9, 1.0]) for name in names} for v in (1, 2)}
    series = []
    for night in range(rng.randint(2, 5)):
        version = 1 if night < 2 else 2
        n = rng.randint(3, 12)
        counts = {
            name: (sum(rng.random() < rates[version][name] for _ in range(n)), n) for name in names
        }
        series.append(measured(version, counts, created=float(night)))
    if {m.version for m in series} != {1, 2}:
        series.append(measured(2, {name: (n // 2, n) for name in names}, created=9.0))
    (change,) = flakiness(series).changes
    assert change.comparison is not None and change.comparison.method == FISHER_METHOD
    tables = []
    for name in names:
        cells = []
        for version in (1, 2):
            passed = sum(
                f.passed
                for m in series
                if m.version == version
                for f in m.figures
                if f.name == name
            )
            n = sum(
                f.n for m in series if m.version == version for f in m.figures if f.name == name
            )
            cells.append([passed, n - passed])
        tables.append(cells)
    raw = [fisher_exact(table).pvalue for table in tables]
    reject, adjusted, _, _ = multipletests(raw, alpha=0.05, method="holm")
    for case, p, rejected in zip(change.comparison.cases, adjusted, reject, strict=True):
        assert float(case.p) == pytest.approx(p, rel=1e-9, abs=1e-12)
        assert (case.verdict is not ChangeVerdict.UNCLEAR) == bool(rejected)
    assert [c.name for c in change.moved] == [n for n, r in zip(names, reject, strict=True) if r]


def test_a_version_with_any_n_chosen_by_looking_is_tested_anytime_valid() -> None:
    series = [
        measured(1, {"a": (20, 20)}, looked=True),
        measured(2, {"a": (0, 20)}),
    ]
    assert pooled(series, 1).looked and not pooled(series, 2).looked
    (change,) = flakiness(series).changes
    assert change.comparison is not None and change.comparison.method == ANYTIME_METHOD
    assert [c.name for c in change.moved] == ["a"]


def test_the_confidence_sets_what_moved() -> None:
    series = [measured(1, {"a": (9, 10)}), measured(2, {"a": (3, 10)})]
    # Fisher's p for 9/10 against 3/10 is 0.0198: beyond chance at 0.95, not at 0.99.
    assert flakiness(series).changes[0].moved
    assert not flakiness(series, Fraction(99, 100)).changes[0].moved


def test_the_stored_series_reads_the_gate_when_there_was_one_else_all_passed() -> None:
    with Store.open() as store:
        store_nightly_series(store)
        agent, series = agent_series(store)
    assert agent == "nightly-bot" and [m.version for m in series] == [1, 1, 1, 1, 2, 2, 3]
    # Night 2 (no gate): flipper 9/10 is not all passed; night 5 (gate 0.95): 10/10 passes,
    # night 6: 9/10 is below it; moved 2/10 fails the gate.
    assert series[1].verdicts["flipper"] is False and series[0].verdicts["flipper"] is True
    assert series[4].verdicts == {"steady": True, "flipper": True, "moved": False, "hard": False}
    assert series[5].verdicts["flipper"] is False


def test_a_trend_is_each_evaluations_pass_at_1_with_its_interval_at_one_level() -> None:
    with Store.open() as store:
        store_nightly_series(store)
        _, series = agent_series(store)
    points = case_trend(series, "moved")
    assert [p.pass_at_1 for p in points] == [
        1,
        1,
        1,
        1,
        Fraction(1, 5),
        Fraction(1, 10),
        Fraction(1, 5),
    ]
    assert [p.verdict for p in points] == [True] * 4 + [False] * 3
    exact = binomtest(2, 10).proportion_ci(0.95, method="exact")
    assert points[4].interval.low == pytest.approx(exact.low)
    assert points[4].interval.high == pytest.approx(exact.high)
    assert case_trend(series, "no-such-case") == []


def test_outside_case_names_reach_the_text_without_escape_sequences() -> None:
    from passk_tui.core.render.flaky_text import plain_flakiness

    hostile = "x\x1b[2Jy\nz"
    series = [measured(1, {hostile: (10, 10)}), measured(2, {hostile: (0, 10)})]
    text = plain_flakiness(flakiness(series))
    assert "\x1b" not in text
    assert len(text.splitlines()) == 4  # header, rule, the case, the version line
    assert text.splitlines()[-1].startswith("version 1 -> 2: x")
