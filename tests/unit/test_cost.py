"""Money exact, tokens unknown rather than 0, and budgets held by the policy (no stack here)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy
import pytest

from passk_tui.core.attempt import Outcome
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.price import Price, money_text, parse_money, parse_price
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.cost_text import comparison_cost_lines
from passk_tui.core.run.budget import BudgetedPolicy
from passk_tui.core.run.policy import AdaptivePolicy, FixedPolicy, Pause, Slot
from passk_tui.core.stats.costs.case_costs import case_costs, evaluation_cost
from passk_tui.core.stats.gating.settling import expected_path, more_to_decide
from passk_tui.core.stats.gating.stopping import GateRule
from passk_tui.core.text.decimals import exact_decimal
from passk_tui.evaluations.settings_text import validate
from passk_tui.targets.agents_file import load_agents
from tests.support.records import record

P, W, E = Outcome.PASSED, Outcome.WRONG, Outcome.ERRORED
PRICE = Price(Fraction("0.15"), Fraction("0.60"))


def usage(tokens_in: int, tokens_out: int) -> dict[str, int]:
    return {"input_tokens": tokens_in, "output_tokens": tokens_out}


def test_a_cost_is_exact_and_unknown_usage_is_none_not_zero() -> None:
    assert PRICE.cost(usage(41, 3)) == Fraction(41 * 15 + 3 * 60, 100 * 10**6)
    assert exact_decimal(PRICE.cost(usage(41, 3))) == "0.00000795"
    assert PRICE.cost(None) is None and PRICE.cost({}) is None
    assert PRICE.cost({"input_tokens": True}) is None  # a bool is not a count
    assert PRICE.cost({"output_tokens": 10}) == Fraction(6, 10**6)  # priced on what it reports
    # A million Turns of 0.1 cents each: exactly $1000, where floats drift.
    total = sum(
        (Price(Fraction("0.001"), Fraction(0)).cost(usage(10**6, 0)) for _ in range(10**3)),
        Fraction(0),
    )
    assert total == 1 and money_text(total) == "$1.00"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction("12.345"), "$12.35"),  # half up, on the exact value, as every figure
        (Fraction("0.012345"), "$0.0123"),
        (Fraction("0.00000795"), "$0.0000080"),
        (Fraction(0), "$0"),
        (None, "-"),
    ],
)
def test_money_is_rounded_only_where_shown(value: Fraction | None, shown: str) -> None:
    assert money_text(value) == shown


def test_prices_and_budgets_are_decimal_text() -> None:
    assert parse_price("0.15") == Fraction(15, 100)
    assert parse_price("1e-3") == Fraction(1, 1000)
    for bad in ("-1", "nan", "inf", "cheap", "1e-999999", "1" * 50):
        with pytest.raises(InputError):
            parse_price(bad)
    with pytest.raises(InputError, match="more than 0"):
        parse_money("0")


def test_per_case_tokens_cost_and_cost_per_pass() -> None:
    records = [
        record(0, 1, P, case="a", usage=usage(40, 3), started=0.0, ended=1.0),
        record(0, 2, W, case="a", usage=usage(42, 5), started=0.0, ended=3.0),
        record(0, 3, E, case="a", usage=usage(44, 0), started=0.0, ended=11.0),  # errored: paid
        record(0, 4, P, case="a", usage=None, started=0.0, ended=2.0),  # unknown: left out
        record(1, 1, W, case="b", usage=usage(10, 10)),
        record(2, 1, P, case="c", usage=None),
    ]
    a, b, c = case_costs(["a", "b", "c"], records, PRICE)
    assert (a.input_tokens.total, a.output_tokens.total, a.total_tokens) == (126, 8, 134)
    assert a.input_tokens.count == 3
    assert a.input_tokens.p95 == pytest.approx(numpy.percentile([40, 42, 44], 95))
    assert a.duration.p50 == pytest.approx(numpy.percentile([1, 3, 11, 2], 50))
    assert a.cost == PRICE.cost(usage(126, 8))
    assert a.cost_per_pass == a.cost / 2
    assert b.cost_per_pass is None  # none passed
    assert c.cost is None and c.total_tokens is None and c.input_tokens.total is None
    assert evaluation_cost([a, b, c]) == a.cost + b.cost
    assert case_costs(["a"], records[:1])[0].cost is None  # no prices, no money


def settings(**more: object) -> Settings:
    return Settings(agent="a", version=1, cases_path="c.toml", attempts=3, k=1, **more)  # type: ignore[arg-type]


def test_a_run_budget_hands_out_exactly_n_and_then_only_replays() -> None:
    policy = BudgetedPolicy(FixedPolicy(2, 3), settings(budget_runs=4))
    handed = [policy.next() for _ in range(4)]
    assert all(isinstance(slot, Slot) for slot in handed)
    assert policy.next() is Pause.DONE and policy.spent
    # Resumed with 3 Runs spent, one of them in flight: its replay is free, one new Run is left.
    replay = Slot(0, 2)
    done = [record(0, 1, case="one")]
    policy = BudgetedPolicy(
        FixedPolicy(2, 3, done), settings(budget_runs=4), runs_started=3, replays=[replay]
    )
    assert policy.most_left() == 2
    assert policy.next() == Slot(1, 1)  # the one Run left
    assert policy.next() == replay  # past the budget, the replay still goes
    assert policy.next() is Pause.DONE and policy.spent


def test_a_cost_budget_counts_what_landed() -> None:
    policy = BudgetedPolicy(
        FixedPolicy(1, 10), settings(price=PRICE, budget_cost=Fraction("0.0000159"))
    )
    first = policy.next()
    assert isinstance(first, Slot)
    policy.landed(record(0, first.attempt, usage=usage(41, 3)))  # $0.00000795
    second = policy.next()
    assert isinstance(second, Slot) and not policy.spent
    policy.landed(record(0, second.attempt, usage=usage(41, 3)))  # exactly the budget
    assert policy.next() is Pause.DONE and policy.spent


def test_the_expected_path_and_how_far_a_case_is_from_settling() -> None:
    assert expected_path(b"\x01\x01", 4).count(1) == 2 + 4 * 5 // 6  # at (2 + 1/2) / 3
    rule = GateRule(Fraction("0.8"), 1).reason
    sure_pass, near_line = b"\x01" * 10, b"\x01" * 8 + b"\x00" * 2
    far = more_to_decide(sure_pass, rule, 200)
    assert far is not None and 0 < far < 40
    assert more_to_decide(near_line, rule, 200) is None  # 0.8 right on the line
    assert rule(expected_path(sure_pass, far)) is not None
    assert rule(expected_path(sure_pass, far - 1)) is None


def test_a_budgeted_adaptive_policy_goes_to_the_case_closest_to_settling() -> None:
    rule = GateRule(Fraction("0.8"), 1).reason
    records = [record(0, n, P, case="sure") for n in range(1, 11)]
    records += [record(1, n, P if n <= 8 else W, case="close") for n in range(1, 11)]
    policy = AdaptivePolicy(2, 10, 100, rule, records, closest_first=True)
    assert {policy.next().case_index for _ in range(5)} == {0}  # type: ignore[union-attr]
    round_robin = AdaptivePolicy(2, 10, 100, rule, records)
    assert {round_robin.next().case_index for _ in range(4)} == {0, 1}  # type: ignore[union-attr]


def test_the_validator_takes_prices_in_pairs_and_a_cost_budget_only_with_prices() -> None:
    base = {"agent": "a", "version": "1", "cases": "c.toml"}
    ok = validate({**base, "price_in": "0.15", "price_out": "0.6", "budget_runs": "9"})
    assert ok.settings is not None and ok.settings.price == Price(Fraction("0.15"), Fraction("0.6"))
    assert ok.settings.budget_runs == 9
    half = validate({**base, "price_in": "0.15"})
    assert half.first_line() == "--price-in: give --price-out too (prices come in pairs)"
    stack = {**base, "stack": "http://127.0.0.1:9"}
    assert validate({**stack, "budget_cost": "1"}).first_line() == (
        "--budget-cost: needs prices (--price-in and --price-out)"
    )
    # Said beside the field whatever else is wrong; the CLI still says the first problem.
    unfinished = validate({"stack": "http://127.0.0.1:9", "budget_cost": "1"})
    assert unfinished.errors["budget_cost"] == "needs prices (the price in and out)"
    assert unfinished.first_line() == "missing --agent, --version, --cases (or use --demo)"
    assert validate({**base, "budget_runs": "0"}).first_line() == (
        "--budget-runs: must be at least 1, got 0"
    )
    assert validate({**base, "price_out": "free", "price_in": "1"}).first_line() == (
        "--price-out: must be a price per million tokens, got 'free'"
    )


def test_an_agents_file_price_is_exact_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "agents.toml"
    path.write_text(
        '[agents.calc.versions.1]\ncommand = ["python3", "x.py"]\n'
        "price = { input_per_mtok = 0.15, output_per_mtok = 0.60 }\n"
    )
    spec = load_agents(path)["calc"][1]
    assert spec.price == Price(Fraction(15, 100), Fraction(6, 10))
    assert Decimal(exact_decimal(spec.price.input_per_mtok)) == Decimal("0.15")
    path.write_text('[agents.calc.versions.1]\ncommand = ["x"]\nprice = { input_per_mtok = 1 }\n')
    with pytest.raises(InputError, match=r"version 1: 'price' must be .*'output_per_mtok'"):
        load_agents(path)
    path.write_text(
        '[agents.calc.versions.1]\ncommand = ["x"]\n'
        "price = { input_per_mtok = -1, output_per_mtok = 1 }\n"
    )
    with pytest.raises(
        InputError, match="price 'input_per_mtok' must be a price per million tokens of 0 or more"
    ):
        load_agents(path)


def test_compare_shows_cost_per_pass_for_a_and_b_after_the_table() -> None:
    a = case_costs(["x", "y"], [record(0, 1, P, case="x", usage=usage(1000, 0))] * 3, PRICE)
    cheaper = Price(PRICE.input_per_mtok / 2, PRICE.output_per_mtok / 2)
    b = case_costs(["x", "y"], [record(0, 1, P, case="x", usage=usage(1000, 0))] * 3, cheaper)
    per_pass, total = comparison_cost_lines(a, b)
    assert per_pass == "cost per passed attempt, A -> B: x $0.00015 -> $0.000075, y - -> -"
    assert total == "cost in all: A $0.00045, B $0.00023"  # 0.000225: half up, as every figure
    assert money_text(Fraction(43, 30000000)) == "$0.0000014"  # a mean need not be a decimal


def test_prices_and_budgets_are_stored_and_every_export_shows_the_cost(tmp_path: Path) -> None:
    from passk_tui.core.run.cases import Case
    from passk_tui.reports.costs import CSV_HEADER
    from passk_tui.reports.export import render_csv, render_json
    from passk_tui.reports.report import build_report
    from passk_tui.reports.report_html import render_report
    from passk_tui.store import Store

    settings = Settings(
        "bot", 1, "/tmp/c.toml", attempts=3, k=1, price=PRICE, budget_runs=5,
        budget_cost=Fraction("0.5"),
    )  # fmt: skip
    cases = [Case("a", "q", None, {"equals": "x"}), Case("b", "q", None, {"equals": "x"})]
    records = [
        record(0, 1, P, case="a", usage=usage(41, 3)),
        record(0, 2, E, case="a", usage=usage(41, 0)),
        record(1, 1, W, case="b", usage=None),
    ]
    with Store.open(tmp_path / "s.db") as store:
        store.create_evaluation("ev_c", settings, cases, "h", created=0.0)
        store.write("ev_c", records)
        store.finish("ev_c", "done", reason="budget spent")
        stored = store.load("ev_c")
    assert stored.settings.price == PRICE and stored.settings.budget_cost == Fraction(1, 2)
    assert stored.settings.budget_runs == 5 and stored.status_reason == "budget spent"
    report = build_report(stored)
    document = __import__("json").loads(render_json(report), parse_float=Decimal)
    evaluation = document["evaluation"]
    assert evaluation["status_reason"] == "budget spent"
    assert Fraction(evaluation["cost"]) == PRICE.cost(usage(82, 3))
    assert evaluation["budget"] == {
        "runs": 5, "cost": Decimal("0.5"), "runs_started": 3, "short_of_plan": ["a", "b"]
    }  # fmt: skip
    a, b = document["cases"]
    p95 = a["tokens"].pop("p95")
    assert a["tokens"] == {
        "input": 82, "output": 3, "p50": {"input": 41, "output": Decimal("1.5")}, "reported": 2
    }  # fmt: skip
    assert float(p95["output"]) == pytest.approx(numpy.percentile([3, 0], 95))
    assert Fraction(a["cost_per_pass"]) == PRICE.cost(usage(82, 3))  # one pass
    assert b["cost"] is None and b["cost_per_pass"] is None and b["tokens"]["input"] is None
    header, row_a, row_b = render_csv(report).splitlines()
    assert header.endswith(",".join(CSV_HEADER))
    assert row_a.endswith(",82,3,41.0,41.0,1.5,2.9,1.50,1.50,0.0000141,0.0000141")
    assert row_b.endswith(",-,-,-,-,-,-,1.50,1.50,-,-")
    html = render_report(report)
    assert '<h2 id="cost">What it cost</h2>' in html and "$0.000014" in html
    assert "<b>budget spent</b>" in html


def test_a_store_from_before_prices_reads_unpriced_and_unbudgeted(tmp_path: Path) -> None:
    from passk_tui.store import Store
    from passk_tui.store.schema import MIGRATIONS
    from tests.support.old_stores import insert_old_evaluation, store_at_schema

    before = next(i for i, step in enumerate(MIGRATIONS) if "price_in" in step)
    path = tmp_path / "old.db"
    with store_at_schema(path, before) as db:
        insert_old_evaluation(db)
    with Store.open(path) as store:
        old = store.load("ev_old")
    s = old.settings
    assert (s.price, s.budget_runs, s.budget_cost, old.status_reason) == (None, None, None, None)
