"""The new views' pure parts: answers, diffs, error groups, curves, forests, costs, reproduce, rerun."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from itertools import pairwise
from math import comb
from pathlib import Path

import numpy
import pytest
from scipy.stats import binomtest

from passk_tui.cli.flags import parse
from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.price import tokens_of
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.answer_diff import answer_diff, default_pair
from passk_tui.core.render.answers import distinct_answers
from passk_tui.core.render.error_groups import error_groups, errors_said, normalised_error
from passk_tui.core.render.reproduce import headless_argv, headless_command, require_text
from passk_tui.core.run.cases import Case, load_cases
from passk_tui.core.run.rerun import failing_cases, write_rerun
from passk_tui.core.stats.costs.case_costs import case_costs, percentile
from passk_tui.core.stats.rates.curves import pass_curve
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.forest import forest_rows
from passk_tui.evaluations.settings_text import settings_from_args
from tests.support import APP_AGENTS, records

P, W, E = Outcome.PASSED, Outcome.WRONG, Outcome.ERRORED


def record(
    attempt: int,
    outcome: Outcome,
    output: object = None,
    *,
    case: str = "capital",
    case_index: int = 0,
    status: str | None = None,
    error: str | None = None,
    seconds: float = 1.0,
    usage: dict | None = None,
) -> AttemptRecord:
    return records.record(
        case_index=case_index,
        case=case,
        attempt=attempt,
        key=f"k{attempt}",
        outcome=outcome,
        status=status or ("failed" if outcome is E else "completed"),
        output=output,
        reason=None,
        error=error,
        run_id=None,
        turn_id=None,
        started=100.0,
        ended=100.0 + seconds,
        usage=usage,
    )


# -- distinct answers and the diff -----------------------------------------------------


def test_answers_group_by_text_most_frequent_first_with_their_verdicts() -> None:
    records = [
        record(1, W, "Sydney"),
        record(2, P, "Canberra"),
        record(3, W, "Sydney"),
        record(4, E),
        record(5, W, "Sydney"),
        record(6, W, "Sydney"),
    ]
    answers = distinct_answers(records)
    assert [(g.text, g.attempts, g.passed, g.wrong) for g in answers.groups] == [
        ("Sydney", (1, 3, 5, 6), 0, 4),
        ("Canberra", (2,), 1, 0),
    ]
    assert answers.no_answer == (4,)
    assert answers.summary() == "Sydney x4, Canberra x1, no answer x1"


def test_equal_objects_are_one_answer_whatever_their_key_order() -> None:
    answers = distinct_answers([record(1, P, {"a": 1, "b": 2}), record(2, P, {"b": 2, "a": 1})])
    assert [g.count for g in answers.groups] == [2]


def test_ties_keep_the_order_answers_first_came_and_the_summary_counts_the_rest() -> None:
    answers = distinct_answers([record(i, W, f"answer {i}") for i in range(1, 7)])
    assert [g.text for g in answers.groups] == [f"answer {i}" for i in range(1, 7)]
    assert answers.summary(limit=2) == "answer 1 x1, answer 2 x1, and 4 more"


def test_default_pair_is_first_passing_against_first_failing_with_an_answer() -> None:
    records = [record(1, E), record(2, W, "Sydney"), record(3, P, "Canberra"), record(4, P, "x")]
    assert default_pair(records) == (3, 2)


def test_default_pair_without_a_pass_takes_the_first_two_different_answers() -> None:
    assert default_pair([record(1, W, "a"), record(2, W, "a"), record(3, W, "b")]) == (1, 3)
    assert default_pair([record(1, P, "a"), record(2, P, "a")]) is None
    assert default_pair([record(1, E), record(2, E)]) is None


def test_diff_aligns_lines_and_marks_the_changed_characters() -> None:
    old = "name: Ada\nage: 36\nend"
    new = "name: Ada\nage: thirty-six\nend\nextra"
    lines = answer_diff(old, new)
    assert [(d.kind, d.text) for d in lines] == [
        ("same", "name: Ada"),
        ("removed", "age: 36"),
        ("added", "age: thirty-six"),
        ("same", "end"),
        ("added", "extra"),
    ]
    removed, added = lines[1], lines[2]
    assert all(removed.text[a:b] in "36" for a, b in removed.changed)
    assert "".join(added.text[a:b] for a, b in added.changed) != ""
    assert added.text[: added.changed[0][0]] == "age: "
    assert lines[4].changed == ((0, 5),)  # an unpaired line is changed throughout


def test_diff_of_equal_answers_has_no_changes() -> None:
    assert all(d.kind == "same" for d in answer_diff("a\nb", "a\nb"))


# -- errors grouped --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("run 01HX3KQ7Z9ABCDEF0123456789 failed", "run 01HY9ZZ7Z9ABCDEF0123456780 failed"),
        (
            "turn 5f0e2c3a-1b2c-4d5e-8f90-0123456789ab lost",
            "turn 0b1c2d3e-aaaa-4bbb-8ccc-ddddeeeeffff lost",
        ),
        ("retried after 0.53 s", "retried after 1.20 s"),
        ("digest 9f86d081884c7d65 mismatch", "digest 2c26b46b68ffc68f mismatch"),
        ("at 2026-12-01T08:45:50Z: reset", "at 2026-12-02T09:00:01.5+01:00: reset"),
        ("object at 0x7f3a2b1c0d90", "object at 0x7f3a2b1c9990"),
        ("request 1733043950 refused", "request 1733043951 refused"),
        ("ConnectionResetError:  [Errno 104]\n peer", "ConnectionResetError: [Errno 104] peer"),
    ],
)
def test_alike_failures_normalise_to_one_key(first: str, second: str) -> None:
    assert normalised_error("failed", first) == normalised_error("failed", second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("HTTP 503 from the stack", "HTTP 429 from the stack"),
        ("[Errno 104] reset", "[Errno 111] refused"),
        ("no Turn within the 30 s deadline", "no Turn within the 60 s deadline"),
        ("ConnectionResetError", "ConnectionRefusedError"),
    ],
)
def test_different_failures_stay_apart(first: str, second: str) -> None:
    assert normalised_error("failed", first) != normalised_error("failed", second)


def test_a_urls_host_and_port_are_kept_and_only_its_variable_parts_normalised() -> None:
    """The stack's address says where it failed: it once read http://<n>.<n>:<n>/…."""
    said = "poll http://127.0.0.1:38231/v1/runs/run_01HXABCDEF0123456789 failed after 12.5 s"
    assert normalised_error("failed", said) == (
        "failed: poll http://127.0.0.1:38231/v1/runs/<id> failed after <n> s"
    )
    named = "https://stack.example.com:8443/v1/runs?after=2026-01-01T00:00:00Z from 10.0.0.7:8000"
    assert normalised_error("failed", named) == (
        "failed: https://stack.example.com:8443/v1/runs?after=<time> from 10.0.0.7:8000"
    )
    # Two stacks are two places: their failures stay apart.
    assert normalised_error("failed", "http://10.0.0.1:8000/v1/runs") != normalised_error(
        "failed", "http://10.0.0.2:8000/v1/runs"
    )


def test_errors_group_across_cases_largest_first_and_ignore_non_errored() -> None:
    reset = "ConnectionResetError: [Errno 104] Connection reset by peer"
    records = [
        record(1, E, case="a", case_index=0, error=reset),
        record(2, E, case="a", case_index=0, status="timed_out", error=None),
        record(1, E, case="b", case_index=1, error=reset),
        record(2, W, "x", case="b", case_index=1),
        record(3, E, case="b", case_index=1, error=reset),
        record(1, E, case="c", case_index=2, status="timed_out", error=None),
    ]
    groups = error_groups(records)
    assert [(g.count, g.label) for g in groups] == [(3, f"failed: {reset}"), (2, "timed_out")]
    assert groups[0].attempts == (("a", 1), ("b", 1), ("b", 3))
    assert groups[0].cases() == {"a": 1, "b": 2}
    assert groups[0].example == reset
    assert error_groups([record(1, P, "x")]) == []
    # What headless says after its table: the largest groups with their cases, the rest counted.
    assert errors_said(groups) == [
        "errored: 5 attempts, 2 kinds of error",
        f"  3x failed: {reset} (a x1, b x2)",
        "  2x timed_out (a x1, c x1)",
    ]
    assert errors_said(groups, limit=1)[-1] == "  and 1 kind more"
    assert errors_said([]) == []


# -- the curve over k and the forest ---------------------------------------------------


def _scipy_rate(c: int, n: int, level: float) -> tuple[float, float]:
    ci = binomtest(c, n).proportion_ci(level, method="exact")
    return ci.low, ci.high


@pytest.mark.parametrize(("passed", "n"), [(0, 5), (3, 5), (5, 5), (7, 20), (1, 1)])
def test_curve_has_every_k_with_exact_figures_and_the_scipy_mapped_interval(
    passed: int, n: int
) -> None:
    curve = pass_curve(passed, n, 0.9)
    low, high = _scipy_rate(passed, n, 0.9)
    assert [p.k for p in curve.points] == list(range(1, n + 1))
    for p in curve.points:
        assert p.pass_at_k == 1 - Fraction(comb(n - passed, p.k), comb(n, p.k))
        assert p.pass_hat_k == Fraction(comb(passed, p.k), comb(n, p.k))
        assert p.pass_at_k_interval.low == pytest.approx(1 - (1 - low) ** p.k, abs=1e-9)
        assert p.pass_at_k_interval.high == pytest.approx(1 - (1 - high) ** p.k, abs=1e-9)
        assert p.pass_hat_k_interval.low == pytest.approx(low**p.k, abs=1e-9)
        assert p.pass_hat_k_interval.high == pytest.approx(high**p.k, abs=1e-9)
    assert curve.method == "clopper-pearson"
    assert pass_curve(0, 0).points == ()


def test_an_adaptive_curve_reads_the_interval_the_gate_reads() -> None:
    """At k, the curve's pass@k interval is the case's own: anytime-valid and order-aware."""
    from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE

    order = bytes([1] * 6 + [0])  # decided at 6 passes; the 7th, a failure, finished late
    f = CaseFigures("late", 7, 6, 1, 0, 3, order=order)
    curve = pass_curve(6, 7, 0.95, CONFIDENCE_SEQUENCE, order)
    assert curve.points[2].pass_at_k_interval == f.intervals(0.95, CONFIDENCE_SEQUENCE).pass_at_k
    unordered = pass_curve(6, 7, 0.95, CONFIDENCE_SEQUENCE)
    assert unordered.points[2].pass_at_k_interval != curve.points[2].pass_at_k_interval


def test_pass_at_k_rises_and_pass_hat_k_falls_along_the_curve() -> None:
    points = pass_curve(6, 10).points
    assert all(a.pass_at_k <= b.pass_at_k for a, b in pairwise(points))
    assert all(a.pass_hat_k >= b.pass_hat_k for a, b in pairwise(points))


def test_forest_rows_carry_the_figure_its_interval_and_the_gate_verdict() -> None:
    figures = [
        CaseFigures("steady", 20, 20, 0, 0, 3),
        CaseFigures("flaky", 5, 3, 2, 0, 3),
        CaseFigures("broken", 20, 0, 0, 20, 3),
        CaseFigures("short", 2, 2, 0, 0, 3),
    ]
    rows = forest_rows(figures, "pass@k", Fraction(9, 10))
    assert [r.verdict for r in rows] == ["pass", "undecided", "fail", None]
    assert rows[3].estimate is None and rows[3].interval is None  # fewer than k attempts
    low, high = _scipy_rate(3, 5, 0.95)
    assert rows[1].estimate == 1  # two failures cannot fill three draws
    assert rows[1].interval.low == pytest.approx(1 - (1 - low) ** 3, abs=1e-9)
    one = forest_rows(figures, "pass@1", Fraction(9, 10))
    assert one[1].interval.high == pytest.approx(high, abs=1e-9)
    assert one[3].estimate == 1 and one[1].verdict is None  # the gate reads pass@k only
    hat = forest_rows(figures, "pass^k")
    assert hat[1].estimate == Fraction(1, 10)
    assert hat[1].interval.low == pytest.approx(low**3, abs=1e-9)


# -- durations and tokens --------------------------------------------------------------


def test_percentile_matches_numpy_linear() -> None:
    rng = random.Random(7)
    for size in (1, 2, 3, 5, 10, 99):
        values = [rng.uniform(0, 30) for _ in range(size)]
        for q in (0, 50, 95, 100):
            assert percentile(values, q) == pytest.approx(numpy.percentile(values, q), abs=1e-12)
    assert percentile([], 50) is None


def test_costs_per_case_count_usage_only_where_reported() -> None:
    records = [
        record(1, P, "x", seconds=1.0, usage={"input_tokens": 40, "output_tokens": 3}),
        record(2, W, "y", seconds=3.0, usage={"input_tokens": 42, "output_tokens": 5}),
        record(3, E, seconds=11.0, usage=None),
        record(1, P, "z", case="other", case_index=1, seconds=2.0, usage={"output_tokens": True}),
    ]
    capital, other, empty = case_costs(["capital", "other", "empty"], records)
    assert capital.attempts == 3
    assert capital.duration.p50 == pytest.approx(3.0)
    assert capital.duration.p95 == pytest.approx(numpy.percentile([1, 3, 11], 95))
    assert (capital.input_tokens.count, capital.input_tokens.p50) == (2, 41.0)
    assert capital.output_tokens.p95 == pytest.approx(numpy.percentile([3, 5], 95))
    assert capital.total_tokens == 90
    assert other.output_tokens.count == 0 and other.total_tokens is None  # True is not a count
    assert empty.attempts == 0 and empty.duration.p50 is None
    assert tokens_of({"input_tokens": -1}, "input_tokens") is None


# -- the command that reproduces a run -------------------------------------------------


def _settings(**changes) -> Settings:
    base = Settings(
        agent="support-bot",
        version=7,
        cases_path="/suites/my cases.toml",
        attempts=10,
        k=4,
        concurrency=8,
        timeout=12.5,
    )
    return Settings(**{**{f: getattr(base, f) for f in base.__slots__}, **changes})


@pytest.mark.parametrize(
    "settings",
    [
        _settings(),
        _settings(require=Fraction(9, 10), completion_only=True),
        _settings(require=Fraction(1, 3), stack="https://stack.example", timeout=0.1 + 0.2),
        _settings(agents_path="agents.toml", timeout=300.0),
    ],
)
def test_headless_argv_parses_back_to_the_same_settings(settings: Settings) -> None:
    argv = headless_argv(settings)
    assert argv[:2] == ["passk-tui", "--headless"]
    assert settings_from_args(parse(argv[1:]), {}) == settings


def test_the_command_never_carries_a_key_and_quotes_for_the_shell() -> None:
    command = headless_command(_settings(stack="https://stack.example"))
    assert "--key" not in command and "PASSK_KEY" not in command
    assert "'/suites/my cases.toml'" in command
    assert require_text(Fraction(9, 10)) == "0.9" and require_text(Fraction(1, 3)) == "1/3"


# -- rerunning the failing cases -------------------------------------------------------


def test_rerun_writes_only_the_failing_cases_which_load_back_alike(tmp_path: Path) -> None:
    demo_cases = load_cases(APP_AGENTS / "cases.toml")
    figures = [
        CaseFigures("steady", 5, 5, 0, 0, 3),
        CaseFigures("flaky", 5, 3, 2, 0, 3),
        CaseFigures("broken-tool", 5, 0, 0, 5, 3),
        CaseFigures("mixed", 5, 2, 1, 2, 3),
    ]
    chosen = failing_cases(demo_cases, figures)
    assert [c.name for c in chosen] == ["flaky", "broken-tool", "mixed"]
    settings = write_rerun("01EVAL", _settings(), chosen, tmp_path / "reruns")
    assert settings.cases_path == str(tmp_path / "reruns" / "01EVAL-failing.jsonl")
    assert settings.agent == "support-bot" and settings.attempts == 10
    loaded = load_cases(Path(settings.cases_path))
    assert [(c.name, c.input, c.spec) for c in loaded] == [
        (c.name, c.input, c.spec) for c in chosen
    ]
    assert loaded[0].check.evaluate("391").passed and not loaded[0].check.evaluate("390").passed


def test_rerun_keeps_completion_only_cases_without_a_check(tmp_path: Path) -> None:
    case = Case("open", {"q": "anything"}, None, None)
    settings = write_rerun("E", _settings(completion_only=True), [case], tmp_path)
    row = json.loads(Path(settings.cases_path).read_text())
    assert row == {"name": "open", "input": {"q": "anything"}}
    assert [c.name for c in load_cases(Path(settings.cases_path), completion_only=True)] == ["open"]


def test_rerun_refuses_nothing_to_run_and_command_checks(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no failing cases"):
        write_rerun("E", _settings(), [], tmp_path)
    command = Case("cmd", "x", None, {"all": [{"equals": "x"}, {"command": ["python3", "c.py"]}]})
    with pytest.raises(InputError, match="'cmd' has a command check"):
        write_rerun("E", _settings(), [command], tmp_path)
    assert list(tmp_path.iterdir()) == []
