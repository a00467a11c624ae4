"""The app's small pure parts: sort orders, searches, short ids, checks as written, line runs."""

from __future__ import annotations

from fractions import Fraction

from rich.console import Console

from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.tui.check_text import check_as_written, inline_toml
from passk_tui.tui.screens.history import short_ids
from passk_tui.tui.screens.results.results_order import COLUMNS, Order, sort_figures
from passk_tui.tui.widgets.line_text import parts_line, right_aligned
from passk_tui.tui.widgets.search_bar import matching

FIGURES = [
    CaseFigures("b", 5, 5, 0, 0, 3),
    CaseFigures("a", 5, 1, 3, 1, 3),
    CaseFigures("c", 5, 3, 0, 2, 3),
]


def test_every_column_sorts_and_a_second_press_reverses_it() -> None:
    indexed = list(enumerate(FIGURES))
    for column in COLUMNS:
        first = Order().pressed(column.key)
        again = first.pressed(column.key)
        assert again.reversed and not first.reversed
        forward = [i for i, _ in sort_figures(indexed, first)]
        backward = [i for i, _ in sort_figures(indexed, again)]
        assert sorted(forward) == [0, 1, 2]
        values = [column.value(FIGURES[i]) for i in forward]
        assert values == sorted(values, reverse=column.highest_first), column.label
        assert [column.value(FIGURES[i]) for i in backward] == values[::-1] or len(set(values)) < 3
        assert first.arrow(column.key) in (" ▲", " ▼") and first.arrow("none") == ""
    assert Order().pressed("p").pressed("e") == Order("e")  # another column: its first order


def test_ties_keep_file_order_in_either_direction() -> None:
    tied = list(enumerate([CaseFigures(n, 5, 5, 0, 0, 3) for n in "xyz"]))
    for reversed_ in (False, True):
        assert [i for i, _ in sort_figures(tied, Order("p", reversed_))] == [0, 1, 2]


def test_order_says_its_direction() -> None:
    assert Order().describe(3) == "file order"
    assert Order("p").describe(3) == "pass@3, lowest first"
    assert Order("e").describe(3) == "errored, highest first"
    assert Order("n", True).describe(3) == "case, Z to A"
    assert Order("p").pressed("p").descending()
    assert Fraction(0) <= FIGURES[1].pass_at_k <= 1


def test_search_ignores_case_and_an_empty_search_shows_all() -> None:
    assert matching(["Alpha", "beta", "alphabet"], "ALPHA") == [0, 2]
    assert matching(["a", "b"], "  ") == [0, 1]


def test_short_ids_stay_unique() -> None:
    ids = ["ev_0123456789aa", "ev_0123456789ab", "ev_99999999999999"]
    shown = short_ids(ids)
    assert shown == ["ev_0123456789aa", "ev_0123456789ab", "ev_9999999…"]
    assert all(i.startswith(s.rstrip("…")) for i, s in zip(ids, shown, strict=True))


def test_checks_show_in_the_cases_files_own_syntax() -> None:
    spec = {"equals": "391", "ignore_case": True, "json": {"required": ["a", "b"]}}
    assert inline_toml(spec) == (
        '{ equals = "391", ignore_case = true, json = { required = ["a", "b"] } }'
    )
    assert inline_toml({"needs quotes": 1.5}) == '{ "needs quotes" = 1.5 }'
    assert check_as_written({"regex": "\\d+"}, "x.toml") == 'check = { regex = "\\\\d+" }'
    assert check_as_written({"regex": "a"}, "x.JSONL") == '"check": {"regex": "a"}'


def runs(text) -> list[str]:
    """The runs a terminal (and an SVG export) gets: segments, equal styles joined."""
    segments = list(Console(width=200).render(text))
    joined: list[tuple[str, object]] = []
    for segment in segments:
        if joined and joined[-1][1] == segment.style:
            joined[-1] = (joined[-1][0] + segment.text, segment.style)
        else:
            joined.append((segment.text, segment.style))
    return [t for t, _ in joined if t.strip()]


def test_no_run_of_a_line_starts_with_spaces() -> None:
    line = parts_line(("arithmetic", "bold"), (" · 5/5 passed", "green"), ("  ! 1", "red"))
    assert line.plain == "arithmetic · 5/5 passed  ! 1"
    assert all(not run.startswith(" ") for run in runs(line))
    assert all(not run.startswith(" ") for run in runs(right_aligned("7", 6, "red")))
    assert right_aligned("7", 6).plain == "     7"


def test_the_demos_weather_case_can_be_passed_wrong_and_errored() -> None:
    """The demo shows what the tool is for: one case with both wrong and errored attempts."""
    import re

    from passk_tui.demo.demo_agent import answer

    class Roll:
        def __init__(self, value: float) -> None:
            self.value = value

        def random(self) -> float:
            return self.value

    question = "Use the weather tool: what is the weather in Lisbon?"
    check = re.compile(r"\d+\s*°C")
    errored, wrong, passed = (answer(question, Roll(v)) for v in (0.1, 0.5, 0.9))
    assert errored[1] != 0
    assert wrong[1] == 0 and not check.search(wrong[0])
    assert passed[1] == 0 and check.search(passed[0])


def test_sorting_takes_undefined_figures() -> None:
    """A cancelled evaluation in Results: sorting by pass@k must not compare None with a number."""
    figures = [
        CaseFigures("full", 5, 5, 0, 0, 3, planned=5),
        CaseFigures("cut", 1, 1, 0, 0, 3, planned=5),
        CaseFigures("low", 5, 0, 5, 0, 3, planned=5),
    ]
    for key in ("p", "h", "y", "1", "a"):
        order = sort_figures(list(enumerate(figures)), Order(key))
        assert {f.name for _, f in order} == {"full", "cut", "low"}
    order = sort_figures(list(enumerate(figures)), Order("p"))
    assert [f.name for _, f in order] == ["cut", "low", "full"]
