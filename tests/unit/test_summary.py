"""The Results header's counts: outcome totals, cases all passed, under the gate, the span."""

from __future__ import annotations

from fractions import Fraction

from passk_tui.core.stats.extent import running_seconds
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.summary import evaluation_totals
from tests.support.records import record


def test_totals_are_counts_never_a_mean() -> None:
    figures = [
        CaseFigures("a", 5, 5, 0, 0, 3),
        CaseFigures("b", 5, 3, 1, 1, 3),
        CaseFigures("c", 3, 0, 0, 3, 3),  # unfinished: 3 of 5 planned
        CaseFigures("d", 2, 0, 2, 0, 3),  # 2 attempts: pass@3 undefined, under no gate yet
    ]
    totals = evaluation_totals(figures, [5, 5, 5, 5], Fraction(9, 10))
    assert (totals.passed, totals.wrong, totals.errored, totals.finished) == (8, 3, 4, 15)
    assert totals.cases == 4 and totals.cases_all_passed == 1
    assert totals.cases_unfinished == 2
    # b: pass@3 with n=5, c=3 is exactly 1, so only c (0 passes in 3) is under 0.9.
    assert totals.cases_under_gate == 1
    assert evaluation_totals(figures, [5, 5, 5, 5], None).cases_under_gate is None


def test_a_case_that_passed_every_attempt_so_far_is_not_all_passed_until_finished() -> None:
    totals = evaluation_totals([CaseFigures("a", 2, 2, 0, 0, 2)], [5], None)
    assert totals.cases_all_passed == 0 and totals.cases_unfinished == 1


def test_running_time_is_the_union_of_the_attempts_spans_so_idle_gaps_do_not_count() -> None:
    spans = [
        [record(started=10.0, ended=12.0), record(started=11.0, ended=19.5)],
        [record(started=9.0, ended=9.5)],
        # A resume an hour later: its 2 s run, not the hour between.
        [record(started=3619.0, ended=3621.0)],
    ]
    assert running_seconds(spans) == 0.5 + 9.5 + 2.0
    assert running_seconds([[], []]) is None


def test_counts_in_words_are_singular_for_one() -> None:
    from passk_tui.core.text.amounts import counted, retries_text

    assert [counted(n, "case") for n in (0, 1, 2)] == ["0 cases", "1 case", "2 cases"]
    assert [retries_text(n) for n in (1, 3)] == ["1 retry", "3 retries"]
