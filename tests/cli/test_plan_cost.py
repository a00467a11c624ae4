"""`passk-tui plan` with money: what the attempts it recommends would cost, after its table."""

from __future__ import annotations

import os
import subprocess
from fractions import Fraction

from passk_tui.core.run.attempt import Outcome
from passk_tui.core.run.cases import Case
from passk_tui.core.run.price import Price, money_text
from passk_tui.core.run.settings import Settings
from passk_tui.core.stats.planning import attempts_to_settle
from passk_tui.store import Store
from tests.support.cli import run
from tests.support.records import record

PRODUCT_PLAN = """\
an agent that passes every attempt passes this gate from n = 36
pass rate  pass@1  n for 50%  n for 80%  verdict
---------  ------  ---------  ---------  -------
0.99       0.99    36         54         pass
0.70       0.70    16         29         fail
"""
GATE = (
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


def plan(*args: str) -> subprocess.CompletedProcess[str]:
    return run("plan", *args, headless=False, timeout=60, env=os.environ.copy())


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
