"""`passk-tui compare A B` end to end: stored evaluations, a real process, exact output and exits."""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from passk_tui.core.run.cases import Case
from passk_tui.demo import demo_agent
from passk_tui.store import Store
from passk_tui.store.errors import UnknownEvaluation
from tests.support.cli import run
from tests.support.compare import (
    BASELINE,
    CANDIDATE,
    PRODUCT_SUITE,
    PRODUCT_TABLE,
    SUITE_LINE,
    SUITE_PASSES_A,
    SUITE_PASSES_B,
    store_evaluation,
    suite_counts,
)

TABLE = (
    PRODUCT_TABLE
    + PRODUCT_SUITE
    + (
        "summary: the drop is mostly errored attempts (A 0/10 errored, B 6/10): look at the platform, "
        "a provider or a tool before the agent\n"
    )
)


def compare(*args: str) -> subprocess.CompletedProcess[str]:
    """`passk-tui compare args` in its own process, in this test's environment as it is."""
    return run("compare", *args, headless=False, timeout=30, env=os.environ.copy())


@pytest.fixture
def pair() -> None:
    store_evaluation("ev_base01", BASELINE, created=1000.0, version=1)
    store_evaluation("ev_cand02", CANDIDATE, created=2000.0, version=2)


@pytest.mark.usefixtures("pair")
def test_the_table_count_line_and_errored_note_by_id_prefix_and_last() -> None:
    for refs in (("ev_base01", "ev_cand02"), ("ev_b", "ev_c"), ("last~1", "last")):
        result = compare(*refs)
        assert (result.returncode, result.stdout, result.stderr) == (0, TABLE, ""), refs


@pytest.mark.usefixtures("pair")
def test_fail_on_regression_names_each_regressed_case_with_both_figures_and_p() -> None:
    result = compare("last~1", "last", "--fail-on-regression")
    assert result.returncode == 1 and result.stdout == TABLE
    assert result.stderr == (
        "passk-tui: regressed: summary: A 10/10 (pass@1 1.00), B 3/10 (pass@1 0.30), "
        "p 0.0093 < 0.05; mostly errored (B 6 errored, A 0)\n"
    )
    # Swapped, summary improved and arithmetic (of wrong answers, not errored ones) regressed.
    swapped = compare("last", "last~1", "--fail-on-regression")
    assert swapped.returncode == 1
    assert "summary     3/10      6          10/10     0          +0.70   0.01  improved" in (
        swapped.stdout
    )
    assert swapped.stderr == (
        "passk-tui: regressed: arithmetic: A 9/10 (pass@1 0.90), B 2/10 (pass@1 0.20), "
        "p 0.011 < 0.05\n"
    )
    assert compare("last~1", "last").returncode == 0  # without the flag, no gate


@pytest.mark.usefixtures("pair")
def test_confidence_sets_the_level_of_the_verdicts() -> None:
    # json-shape never moves; at C = 0.99 the two p of 0.01 (0.0093, 0.011) part ways.
    result = compare("last~1", "last", "--confidence", "0.99")
    assert result.returncode == 0
    assert "0 improved, 1 regressed, 2 unclear\n" in result.stdout
    for bad in ("1", "0", "high"):
        refused = compare("last~1", "last", "--confidence", bad)
        assert refused.returncode == 2 and refused.stdout == ""
        assert (
            refused.stderr.startswith("passk-tui: --confidence: ")
            and "\n" not in (refused.stderr[:-1])
        )


@pytest.mark.usefixtures("pair")
def test_unknown_ambiguous_and_out_of_range_references_are_exit_2_naming_them() -> None:
    for refs, message in (
        (("ev_", "last"), "'ev_' names more than one evaluation"),
        (("last", "ev_nope"), "no evaluation 'ev_nope' in the store"),
        (("last~2", "last"), "last~2: the store holds only 2 evaluations"),
    ):
        result = compare(*refs)
        assert result.returncode == 2 and result.stdout == "", refs
        assert result.stderr.startswith("passk-tui: ") and message in result.stderr
        assert result.stderr.count("\n") == 1


def test_no_shared_case_or_a_different_k_is_exit_2() -> None:
    store_evaluation("ev_a", {"x": (5, 0, 0)}, created=1.0)
    store_evaluation("ev_b", {"y": (5, 0, 0)}, created=2.0)
    store_evaluation("ev_c", {"x": (5, 0, 0)}, created=3.0, k=2)
    result = compare("ev_a", "ev_b")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "passk-tui: A (ev_a) and B (ev_b) share no case name: nothing to compare\n"
    )
    result = compare("ev_a", "ev_c")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "passk-tui: A (ev_a) has k = 3 and B (ev_c) has k = 2: "
        "compare evaluations made with the same k\n"
    )


def test_cases_in_only_one_are_listed_after_the_table_and_warnings_go_to_stderr() -> None:
    store_evaluation("ev_a", {"x": (5, 0, 0), "gone": (0, 5, 0)}, created=1.0)
    store_evaluation(
        "ev_b",
        {"new": (5, 0, 0), "x": (3, 1, 0)},
        created=2.0,
        inputs={"x": "changed"},
        status=None,
    )
    result = compare("ev_a", "ev_b")
    assert result.returncode == 0
    assert result.stdout.endswith(
        "x     5/5       0          3/4       0          -0.25   0.44  unclear\n"
        "0 improved, 0 regressed, 1 unclear\n"
        "suite: B better on 0 cases, worse on 1, same on 0; "
        "odds ratio 0 (95% CI 0-31.20), p 0.26, unclear\n"
        "only in A: gone\nonly in B: new\n"
    )
    assert result.stderr == (
        "passk-tui: warning: B (ev_b) is interrupted: 1 attempts missing; "
        "comparing the attempts stored\n"
        "passk-tui: warning: the input or check differs between A and B for x: "
        "their change mixes the agent's with the case's\n"
    )


@pytest.mark.usefixtures("pair")
def test_exports(tmp_path: Path) -> None:
    paths = [tmp_path / f"compare{suffix}" for suffix in (".json", ".csv", ".md")]
    for path in paths:
        result = compare("last~1", "last", "--export", str(path))
        assert result.returncode == 0 and result.stdout == TABLE, result.stderr
    document = json.loads(paths[0].read_text())
    assert (document["a"]["id"], document["b"]["id"]) == ("ev_base01", "ev_cand02")
    assert document["counts"] == {"improved": 1, "regressed": 1, "unclear": 1}
    assert document["confidence"] == 0.95 and document["alpha"] == 0.05
    summary = document["cases"][2]
    assert summary["name"] == "summary" and summary["verdict"] == "regressed"
    assert {
        k: summary["b"][k] for k in ("attempts", "passed", "wrong", "errored", "pass_at_1")
    } == {
        "attempts": 10,
        "passed": 3,
        "wrong": 1,
        "errored": 6,
        "pass_at_1": 0.3,
    }
    assert summary["mostly_errored"] is True and summary["change"] == -0.7
    assert summary["p"] == pytest.approx(3 * summary["p_fisher"])
    assert summary["p_raw"] == summary["p_fisher"]
    assert document["method"] == (
        "Fisher's exact test, two-sided, Holm-adjusted across the compared cases"
    )
    assert document["suite"] == {
        "better": 1,
        "worse": 2,
        "same": 0,
        "odds_ratio": pytest.approx(0.9, abs=0.005),
        "low": pytest.approx(0.35, abs=0.01),
        "high": pytest.approx(2.25, abs=0.01),
        "infinite": [],
        "p": pytest.approx(0.79, abs=0.005),
        "verdict": "unclear",
        "method": "Cochran-Mantel-Haenszel test over the cases' 2x2 tables, "
        "Mantel-Haenszel common odds ratio with the Robins-Breslow-Greenland interval "
        "(exact conditional, one-sided, when every case's discordance goes one way)",
    }
    rows = list(csv.DictReader(paths[1].open()))
    assert [r["verdict"] for r in rows] == ["improved", "unclear", "regressed"]
    assert rows[2]["mostly_errored"] == "yes" and float(rows[2]["p"]) == summary["p"]
    md = paths[2].read_text()
    assert "| summary | 10/10 | 0 | 3/10 | 6 | -0.70 | 0.01 | regressed |" in md
    assert "**1 improved, 1 regressed, 1 unclear**" in md
    assert PRODUCT_SUITE in md
    assert "- summary: the drop is mostly errored attempts" in md


@pytest.mark.usefixtures("pair")
def test_a_bad_export_path_is_refused_before_anything_is_printed(tmp_path: Path) -> None:
    for path, message in (
        (
            tmp_path / "x.xml",
            "the format follows the suffix: .json, .csv, .md or .html, not '.xml'",
        ),
        (tmp_path / "no" / "x.json", "no such folder"),
    ):
        result = compare("last~1", "last", "--export", str(path))
        assert result.returncode == 2 and result.stdout == ""
        assert message in result.stderr


def test_resolve_counts_back_from_the_newest() -> None:
    for n in range(3):
        store_evaluation(f"ev_{n}", {"x": (1, 0, 0)}, created=float(n))
    with Store.open() as store:
        assert [store.resolve(r) for r in ("last", "last~0", "last~1", "last~2")] == [
            "ev_2",
            "ev_2",
            "ev_1",
            "ev_0",
        ]
        with pytest.raises(UnknownEvaluation, match="last~3: the store holds only 3 evaluations"):
            store.resolve("last~3")
        with pytest.raises(UnknownEvaluation, match="no evaluation 'last~x'"):
            store.resolve("last~x")


def test_compare_is_in_the_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "passk_tui", "--help"], capture_output=True, text=True, timeout=30
    )
    assert "passk-tui compare A B" in " ".join(result.stdout.split())
    help_text = compare("--help")
    assert help_text.returncode == 0 and "--fail-on-regression" in help_text.stdout


def test_demo_version_2_differs_from_version_1_on_the_arithmetic_case_alone() -> None:
    questions = [
        case.input if isinstance(case.input, str) else json.dumps(case.input)
        for case in _demo_cases()
    ]
    for seed in range(50):
        v1 = [demo_agent.answer(q, random.Random(seed), 1) for q in questions]
        v2 = [demo_agent.answer(q, random.Random(seed), 2) for q in questions]
        assert v1[1:] == v2[1:]
    answers = {demo_agent.answer(questions[0], random.Random(s), 2)[0] for s in range(50)}
    assert answers == {"391", "17 * 23 = 391"}


def _demo_cases() -> list[Case]:
    from passk_tui.core.run.cases import load_cases
    from passk_tui.demo import CASES

    cases = load_cases(CASES)
    assert cases[0].name == "arithmetic"
    return cases


@pytest.mark.usefixtures("pair")
def test_compare_needs_neither_textual_nor_scipy() -> None:
    code = (
        "import sys\nfrom passk_tui.cli.main import main\n"
        "assert main(['compare', 'last~1', 'last']) == 0\n"
        "assert 'textual' not in sys.modules and 'scipy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30, capture_output=True)


@pytest.fixture
def suite_pair() -> None:
    store_evaluation("ev_old", suite_counts(SUITE_PASSES_A), created=1.0)
    store_evaluation("ev_new", suite_counts(SUITE_PASSES_B), created=2.0)


@pytest.mark.usefixtures("suite_pair")
def test_the_suite_line_after_the_count_line_and_in_the_json(tmp_path: Path) -> None:
    path = tmp_path / "cmp.json"
    result = compare("last~1", "last", "--fail-on-regression", "--export", str(path))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.endswith(f"0 improved, 0 regressed, 20 unclear\n{SUITE_LINE}\n")
    suite = json.loads(path.read_text())["suite"]
    assert {k: suite[k] for k in ("better", "worse", "same", "verdict")} == {
        "better": 7,
        "worse": 2,
        "same": 11,
        "verdict": "improved",
    }
    assert (suite["odds_ratio"], suite["low"], suite["high"], suite["p"]) == pytest.approx(
        (1.849057, 1.210575, 2.824286, 0.004298), rel=1e-5
    )


def test_one_way_discordance_shows_inf_and_a_one_sided_interval_in_every_face(
    tmp_path: Path,
) -> None:
    """B never worse: the odds ratio is infinite, its interval [L, inf), alike on stdout, in the
    .json (``infinite`` names its nulls), the .md and the .html."""
    store_evaluation("ev_a", {"x": (5, 5, 0), "y": (8, 2, 0), "z": (10, 0, 0)}, created=1.0)
    store_evaluation("ev_b", {"x": (10, 0, 0), "y": (10, 0, 0), "z": (10, 0, 0)}, created=2.0)
    line = (
        "suite: B better on 2 cases, worse on 0, same on 1; "
        "odds ratio inf (95% CI 1.84-inf), p 0.004, improved"
    )
    paths = [tmp_path / f"cmp{suffix}" for suffix in (".json", ".md", ".html")]
    for path in paths:
        result = compare("ev_a", "ev_b", "--export", str(path))
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout.endswith(f"0 improved, 0 regressed, 3 unclear\n{line}\n")
    suite = json.loads(paths[0].read_text())["suite"]
    assert (suite["odds_ratio"], suite["high"], suite["infinite"]) == (
        None,
        None,
        ["odds_ratio", "high"],
    )
    assert 1.84 <= suite["low"] < 1.85 and suite["verdict"] == "improved"
    assert f"\n{line}\n" in paths[1].read_text()
    assert f'id="suite">{line}</p>' in paths[2].read_text()
    # The other way round: the odds ratio is 0 and the interval [0, U], U = 1/L.
    result = compare("ev_b", "ev_a", "--export", str(paths[0]))
    assert "; odds ratio 0 (95% CI 0-0.55), p 0.004, regressed\n" in result.stdout
    suite = json.loads(paths[0].read_text())["suite"]
    assert (suite["odds_ratio"], suite["low"], suite["infinite"]) == (0.0, 0.0, [])


@pytest.mark.usefixtures("suite_pair")
def test_fail_on_regression_fails_on_a_suite_regression_named_suite() -> None:
    result = compare("last", "last~1", "--fail-on-regression")
    assert "0 improved, 0 regressed, 20 unclear\n" in result.stdout
    assert result.returncode == 1
    assert result.stderr == (
        "passk-tui: regressed: suite: B worse on 7 of 20 cases; "
        "odds ratio 0.54 (95% CI 0.35-0.83), p 0.0043 < 0.05\n"
    )
    assert compare("last", "last~1").returncode == 0


def test_an_adaptive_side_is_compared_by_the_anytime_test_named_in_output_and_json(
    tmp_path: Path,
) -> None:
    store_evaluation("ev_fixed", {"x": (2, 18, 0), "y": (10, 10, 0)}, created=1.0)
    store_evaluation("ev_adapt", {"x": (18, 2, 0), "y": (11, 9, 0)}, created=2.0, max_attempts=40)
    path = tmp_path / "cmp.json"
    result = compare("ev_fixed", "ev_adapt", "--export", str(path))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "case  A passed  A errored  B passed  B errored  change  p       verdict\n"
        "----  --------  ---------  --------  ---------  ------  ------  --------\n"
        "x     2/20      0          18/20     0          +0.80   <0.001  improved\n"
        "y     10/20     0          11/20     0          +0.05   1.00    unclear\n"
        "1 improved, 0 regressed, 1 unclear\n"
        "suite: B better on 2 cases, worse on 0, same on 0; odds ratio 4.62, p 0.14, unclear\n"
        "B: n chosen by looking (adaptive or extended), so each case is tested by the "
        "anytime-valid e-value test (Jeffreys beta-binomial mixture over the pooled rate), "
        "Holm-adjusted across the compared cases\n"
        "the suite line: anytime-valid e-value over the cases' attempts paired by number "
        "(directional, "
        "a common log-odds shift), Mantel-Haenszel common odds ratio as an estimate\n"
    )
    document = json.loads(path.read_text())
    assert document["method"].startswith("anytime-valid e-value test")
    x = document["cases"][0]
    assert x["p_fisher"] is None and x["p"] == pytest.approx(2 * x["p_raw"])
    assert document["suite"]["p"] == pytest.approx(0.14, abs=0.005)
    assert document["suite"]["low"] is None and document["suite"]["high"] is None
