"""`passk-tui plan` end to end: PRODUCT.md's table to the character, every mode, bad flags,
and what the attempts it recommends would cost."""

from __future__ import annotations

import os
import subprocess
from fractions import Fraction

import pytest

from passk_tui.core.attempt import Outcome
from passk_tui.core.inputs.price import Price, money_text
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.core.stats.plan.adaptive_plan import adaptive_rows
from passk_tui.core.stats.plan.gate_chance import attempts_to_settle
from passk_tui.core.stats.plan.gate_thresholds import Thresholds
from passk_tui.store import Store
from tests.support.cli import run
from tests.support.compare import store_evaluation
from tests.support.records import record

PRODUCT_PLAN = """\
an agent that passes every attempt passes this gate from n = 36
pass rate  pass@1  n for 50%  n for 80%  verdict
---------  ------  ---------  ---------  -------
0.99       0.99    36         54         pass
0.70       0.70    16         29         fail
"""


def plan(*args: str) -> subprocess.CompletedProcess[str]:
    return run("plan", *args, headless=False, timeout=60, env=os.environ.copy())


def test_the_product_example_to_the_character() -> None:
    result = plan(
        "--require",
        "0.9",
        "--k",
        "1",
        "--confidence",
        "0.95",
        "--expect",
        "0.99",
        "--expect",
        "0.7",
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, PRODUCT_PLAN, "")


def test_default_rates_the_line_itself_and_beyond_ten_thousand() -> None:
    result = plan("--require", "0.9", "--k", "1", "--expect", "0.9", "--expect", "0.901")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[3:] == [
        "0.90       0.90    -          -          never",
        "0.90       0.90    >10000     >10000     pass",
    ]
    rows = plan("--require", "0.8").stdout.splitlines()
    assert rows[1] == "pass rate  pass@3  n for 50%  n for 80%  verdict"
    assert [row.split()[0] for row in rows[3:]] == ["0.52", "0.47", "0.44", "0.40", "0.37", "0.32"]


def test_family_wise_plans_each_case_at_the_bonferroni_level() -> None:
    result = plan(
        "--require", "0.9", "--k", "1", "--expect", "0.99", "--family-wise", "--cases", "20"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "an agent that passes every attempt passes this gate from n = 64"
    assert lines[-1] == (
        "whole suite: each of 20 cases judged at 99.75% (Bonferroni), so that every verdict is "
        "right with chance at least 95%"
    )


def test_adaptive_says_its_seed_and_is_the_same_again() -> None:
    args = ("--require", "0.8", "--expect", "0.9", "--expect", "0.2", "--adaptive", "--seed", "7")
    first, again = plan(*args), plan(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    lines = first.stdout.splitlines()
    assert lines[0].endswith("(anytime-valid interval)")
    assert lines[1] == "pass rate  pass@3  mean attempts  right  undecided  verdict"
    assert lines[-1] == (
        "adaptive: 5 attempts, then one at a time while undecided, up to 200; "
        "2,000 simulated cases per rate, seed 7"
    )


def test_compare_plans_fishers_power() -> None:
    result = plan("--compare", "0.3", "0.7", "--cases", "20")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == [
        "A pass rate  B pass rate  change  n for 50%  n for 80%  verdict",
        "-----------  -----------  ------  ---------  ---------  --------",
        "0.30         0.70         +0.40   32         49         improved",
    ]


def test_from_a_stored_evaluation_names_its_undecided_cases(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PASSK_DATA_DIR", str(tmp_path))
    store_evaluation("ev_plan", {"solid": (10, 0, 0), "shaky": (6, 2, 2)}, created=1.0)
    result = plan("--from", "last", "--require", "0.8", "--confidence", "0.95")
    assert result.returncode == 0, result.stderr
    more = [attempts_to_settle(6, 10, Fraction(8, 10), 3, 0.95, t) for t in (0.5, 0.8)]
    assert result.stdout.splitlines() == [
        "ev_plan: 1 of 2 cases undecided; more attempts each (its rate taken at its estimate, "
        "judged by the anytime-valid interval once extended)",
        "case   passed  pass@3  pass@3 95% CI  more for 50%  more for 80%",
        "-----  ------  ------  -------------  ------------  ------------",
        f"shaky  6/10    0.97    0.59-1.00      {more[0]:<12}  {more[1]}",
    ]
    no_gate = plan("--from", "last")
    assert no_gate.returncode == 2
    assert no_gate.stderr == "passk-tui: --from last: ev_plan has no gate: give --require X\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--require", "1.5"), "--require: must be between 0 and 1, got 1.5"),
        (
            ("--expect", "0.5"),
            "missing --require (the gate to plan for), --from ID or --compare A B",
        ),
        (
            ("--require", "0.9", "--family-wise"),
            "--family-wise: needs --cases M (the suite it plans for)",
        ),
        (("--require", "0.9", "--k", "0"), "--k: must be at least 1, got 0"),
        (
            ("--require", "0.9", "--expect", "x"),
            "--expect: must be a number between 0 and 1, got 'x'",
        ),
        (("--compare", "0.3"), "argument --compare: expected 2 arguments"),
        (
            ("--require", "0.9", "--confidence", "1"),
            "--confidence: must be strictly between 0 and 1, got 1",
        ),
        (("--from", "nope"), None),
        (
            ("--compare", "0.3", "0.7", "--adaptive"),
            "--adaptive: not with --compare (it plans another question)",
        ),
        (
            ("--require", "0.9", "--cases", "3"),
            "--cases: with --family-wise (or --compare), the suite it plans for",
        ),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(args: tuple[str, ...], message: str | None) -> None:
    result = plan(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    if message is not None:
        assert result.stderr == f"passk-tui: {message}\n"


# -- with money ---------------------------------------------------------------------------

GATE = (
    "--require", "0.9", "--k", "1", "--confidence", "0.95", "--expect", "0.99", "--expect", "0.7"
)  # fmt: skip


def test_prices_and_tokens_price_each_n_after_the_table_left_as_it_was() -> None:
    prices = ("--price-in", "0.15", "--price-out", "0.6", "--tokens-in", "41", "--tokens-out", "3")
    result = plan(*GATE, *prices)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(PRODUCT_PLAN)
    each = Price(Fraction("0.15"), Fraction("0.6")).of_tokens(41, 3)  # $0.00000795
    shown = [[money_text(n * each) for n in pair] for pair in ((36, 54), (16, 29))]
    assert result.stdout[len(PRODUCT_PLAN) :].splitlines() == [
        "cost: $0.0000080 an attempt (41 in / 3 out tokens at 0.15 in / 0.6 out per million tokens)",
        f"cost per case, for 50% / 80%: 0.99 {shown[0][0]} / {shown[0][1]}, "
        f"0.70 {shown[1][0]} / {shown[1][1]}",
    ]
    assert plan(*GATE).stdout == PRODUCT_PLAN  # no prices: nothing added
    refused = plan(*GATE, "--price-in", "1", "--price-out", "1")
    assert refused.returncode == 2 and refused.stderr.startswith(
        "passk-tui: --price-in: give --tokens-in and --tokens-out"
    )


def test_adaptive_prices_its_mean_attempts_and_its_cap_in_the_fixed_plans_words() -> None:
    prices = ("--price-in", "0.15", "--price-out", "0.6", "--tokens-in", "41", "--tokens-out", "3")
    adaptive = (*GATE, "--adaptive", "--max-attempts", "120")
    result = plan(*adaptive, *prices)
    assert result.returncode == 0, result.stderr
    unpriced = plan(*adaptive).stdout
    assert result.stdout.startswith(unpriced)  # the table and its line left as they were
    each = Price(Fraction("0.15"), Fraction("0.6")).of_tokens(41, 3)
    # The mean attempts the table shows, unrounded: core's simulation at the same seed.
    thresholds = Thresholds(Fraction("0.9"), 1, 0.95, anytime=True)
    rows = adaptive_rows([Fraction("0.99"), Fraction("0.7")], thresholds, 5, 120)
    means = [Fraction(row.mean_attempts) for row in rows]
    assert [f"{row.mean_attempts:.1f}" for row in rows] == [
        line.split()[2] for line in unpriced.splitlines()[3:5]
    ]
    assert result.stdout[len(unpriced) :].splitlines() == [
        "cost: $0.0000080 an attempt (41 in / 3 out tokens at 0.15 in / 0.6 out per million tokens)",
        f"cost per case, for the mean attempts: 0.99 {money_text(means[0] * each)}, "
        f"0.70 {money_text(means[1] * each)}; at most {money_text(120 * each)} "
        "(120 attempts, the cap)",
    ]
    refused = plan(*adaptive, "--price-in", "1", "--price-out", "1")
    assert refused.returncode == 2 and refused.stderr.startswith(
        "passk-tui: --price-in: give --tokens-in and --tokens-out"
    )


def test_from_a_stored_evaluation_prices_its_more_attempts_at_its_observed_tokens(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("PASSK_DATA_DIR", str(tmp_path))
    price = Price(Fraction(1), Fraction(2))
    settings = Settings("bot", 1, "/x/c.toml", attempts=10, k=3, price=price)
    cases = [Case("solid", "s", None), Case("shaky", "s", None)]
    outcomes = [Outcome.PASSED] * 6 + [Outcome.WRONG] * 4
    records = [record(0, a, Outcome.PASSED, case="solid") for a in range(1, 11)]
    records += [
        record(1, a, o, case="shaky", usage={"input_tokens": 100 * a, "output_tokens": 10})
        for a, o in enumerate(outcomes, start=1)
    ]
    with Store.open() as store:
        store.create_evaluation("ev_cost", settings, cases, "h", created=1.0)
        store.write("ev_cost", records)
        store.finish("ev_cost", "done")
    result = plan("--from", "last", "--require", "0.8", "--confidence", "0.95")
    assert result.returncode == 0, result.stderr
    more = [attempts_to_settle(6, 10, Fraction(8, 10), 3, 0.95, t) for t in (0.5, 0.8)]
    assert all(n is not None for n in more)
    each = price.of_tokens(Fraction(5500, 10), 10)  # the mean of 100..1000 in, 10 out
    shown = [money_text(n * each) for n in more if n is not None]
    assert result.stdout.splitlines()[-1] == (
        "cost of the attempts to add, for 50% / 80% (each case's observed tokens per attempt at "
        f"1 in / 2 out per million tokens): shaky {shown[0]} / {shown[1]}; "
        f"in all {shown[0]} / {shown[1]}"
    )
