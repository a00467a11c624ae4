"""The cost flags as ``evaluate()`` keywords: a Run budget held, prices stored, bad text refused."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import passk_tui
from passk_tui.store import Store
from tests.support import CLI_AGENTS

SEED = CLI_AGENTS / "seed.toml"


def test_a_run_budget_and_prices_as_keywords(app_env: Path) -> None:
    calls: list[str] = []

    def agent(text: str) -> str:
        calls.append(text)
        return "391"

    result = passk_tui.evaluate(
        agent, cases=str(SEED), attempts=4, budget_runs=5, price_in=0.15, price_out="0.6",
        name="calc", version=1, concurrency=3,
    )  # fmt: skip
    assert len(calls) == 5
    with Store.open() as store:
        stored = store.load(result.id)
    assert stored.status_reason == "budget spent" and stored.runs_started == 5
    assert stored.settings.price is not None
    assert stored.settings.price.input_per_mtok == Fraction(15, 100)
    with pytest.raises(passk_tui.InputError, match=r"^price_in: give price_out too"):
        passk_tui.evaluate(agent, cases=str(SEED), price_in=1, name="calc", version=1)
