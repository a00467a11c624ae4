"""Pilot tests of Configure's cost fields: prices and budgets typed, checked by the flags'
validator in the CLI's words, stored by a run, remembered, filled by flags, kept by a resume."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from textual.widgets import Button, Collapsible, Input, Static

from passk_tui.cli.flags import parse
from passk_tui.core.errors import ExitCode, InputError
from passk_tui.core.inputs.price import Price
from passk_tui.evaluations.cost_settings import with_local_price
from passk_tui.evaluations.settings_text import settings_from_args
from passk_tui.store import Store
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.app.launch import form_values, run_app
from passk_tui.tui.screens.configure.form import blank_form
from passk_tui.tui.screens.configure.last_used import load_last_used
from passk_tui.tui.screens.configure.screen import ConfigureScreen
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from passk_tui.tui.screens.run import RunScreen
from tests.support.app import blocking, fill, message, run_to_end, wait_for

SIZE = (120, 36)
LOCAL = {"agent": "scripted", "version": "1", "cases": "cases.toml"}
LOCAL_FLAGS = ["--agent", "scripted", "--version", "1", "--cases", "cases.toml"]
PRICE = Price(Fraction("0.15"), Fraction("0.6"))


def said(app: PasskApp, field: str) -> str:
    return str(message(app, field).render())


def cli_line(*flags: str) -> str:
    """What the CLI says of these flags (its one line, exit 2), from the same validator."""
    with pytest.raises(InputError) as refused:
        settings_from_args(parse([*LOCAL_FLAGS, *flags]), {})
    return str(refused.value)


async def test_cost_fields_fold_away_and_open_to_be_typed_in(app_env: Path) -> None:
    app = PasskApp(form=blank_form() | LOCAL, show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        cost = app.screen.query_one("#cost", Collapsible)
        assert cost.collapsed and cost.title == "Cost no prices · no budget"
        app.screen.query_one("#cost CollapsibleTitle").focus()
        await pilot.press("enter")  # opened from the keyboard, then typed into
        assert not cost.collapsed and cost.title == "Cost"
        app.screen.query_one("#input-budget_runs", Input).focus()
        await pilot.press("1", "2")
        assert said(app, "budget_runs") == "at most 12 Runs in all"
        await pilot.press("shift+tab", "shift+tab", "shift+tab")  # back to the title
        await pilot.press("enter")
        assert cost.collapsed and cost.title == "Cost no prices · budget 12 Runs"


async def test_bad_values_get_the_clis_words_beside_their_fields(app_env: Path) -> None:
    app = PasskApp(form=blank_form() | LOCAL, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        run = app.screen.query_one("#run", Button)
        assert not run.disabled
        await fill(pilot, price_in="free", price_out="0.6")
        assert said(app, "price_in") == "must be a price per million tokens, got 'free'"
        assert (
            cli_line("--price-in", "free", "--price-out", "0.6")
            == f"--price-in: {said(app, 'price_in')}"
        )
        assert run.disabled and "-error" in message(app, "price_in").classes
        await fill(pilot, price_in="0.15", price_out="")
        assert said(app, "price_out") == "give the price out too (prices come in pairs)"
        assert (
            cli_line("--price-in", "0.15")
            == "--price-in: give --price-out too (prices come in pairs)"
        )
        await fill(pilot, price_in="", budget_runs="0", budget_cost="0")
        assert said(app, "budget_runs") == "must be at least 1, got 0"
        assert cli_line("--budget-runs", "0") == f"--budget-runs: {said(app, 'budget_runs')}"
        assert said(app, "budget_cost") == "must be more than 0"
        assert cli_line("--budget-cost", "0") == f"--budget-cost: {said(app, 'budget_cost')}"
        # A cost budget needs prices: scripted version 1 has none in its agents file.
        await fill(pilot, budget_runs="", budget_cost="2")
        assert said(app, "budget_cost") == "needs prices: give a price in the agents file, or here"
        local = settings_from_args(parse([*LOCAL_FLAGS, "--budget-cost", "2"]), {})
        with pytest.raises(InputError) as refused:
            with_local_price(local)  # what a run started from flags says
        assert str(refused.value) == (
            "--budget-cost: needs prices: give 'scripted' version 1 a price in the agents file, "
            "or --price-in and --price-out"
        )
        assert said(app, "price_in") == "none in the agents file"
        assert run.disabled
        app.screen.query_one("#input-agent", Input).focus()
        await pilot.press("ctrl+r")  # refused: the field to fix is focused
        assert app.focused is app.screen.query_one("#input-budget_cost", Input)
        await fill(pilot, price_in="0.15", price_out="0.6")
        assert not run.disabled, app.screen.check.errors
        assert said(app, "budget_cost") == "at most $2.00 spent"


async def test_a_stack_agents_cost_budget_needs_the_prices_typed(app_env: Path, stack) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await fill(pilot, stack=stack.url, key="secret-key", budget_cost="2")
        # Said at once, though the agent is still missing (the CLI says that first).
        assert said(app, "budget_cost") == "needs prices (the price in and out)"
        assert said(app, "price_in") == "none: tokens shown, no cost"
        await fill(pilot, price_in="0.15", price_out="0.6")
        assert said(app, "budget_cost") == "at most $2.00 spent"


async def test_the_agents_files_price_is_shown_and_a_typed_one_wins(
    app_env: Path, tmp_path: Path
) -> None:
    agents = tmp_path / "agents.toml"
    script = Path("scripted.py").resolve()
    agents.write_text(
        f'[agents.scripted.versions.1]\ncommand = ["python3", "{script}"]\n'
        "price = { input_per_mtok = 0.15, output_per_mtok = 0.60 }\n"
    )
    form = blank_form() | LOCAL | {"agents": str(agents), "budget_cost": "2"}
    app = PasskApp(form=form, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        assert not app.screen.query_one("#cost", Collapsible).collapsed  # it holds a budget
        assert (said(app, "price_in"), said(app, "price_out")) == (
            "from the agents file: 0.15",
            "from the agents file: 0.6",
        )
        assert said(app, "budget_cost") == "at most $2.00 spent"  # priced by the file
        await fill(pilot, price_in="0.2", price_out="1")
        assert said(app, "price_in") == "wins over the agents file's 0.15"
        assert said(app, "price_out") == "wins over the agents file's 0.6"


async def test_a_run_from_the_form_stores_its_prices_and_budget(app_env: Path, stack) -> None:
    """A stack agent priced in the form: the store, Run, Results and the next Configure have it."""
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await fill(
            pilot,
            stack=stack.url,
            key="secret-key",
            agent="demo",
            version="1",
            cases="cases.toml",
            attempts="2",
            concurrency="1",
        )
        await fill(pilot, price_in="0.15", price_out="0.60", budget_runs="5", budget_cost="9")
        run = app.screen.query_one("#run", Button)
        await wait_for(pilot, lambda: not run.disabled)
        await pilot.press("ctrl+r")
        await run_to_end(pilot)
        (run_screen,) = [screen for screen in app.screen_stack if isinstance(screen, RunScreen)]
        held = str(run_screen.query_one("#run-settings", Static).render())
        assert "no gate · budget 5 Runs, $9.00 · at 0.15 in / 0.6 out per million tokens" in held
        assert isinstance(app.screen, ResultsScreen)
        cost = str(app.screen.query_one("#results-cost", Static).render())
        assert "in all (at 0.15 in / 0.6 out per million tokens)" in cost
        assert "budget spent: 3 cases got fewer attempts than planned" in cost
        evaluation_id = app.controller.view.evaluation_id
    stored = Store.open().load(evaluation_id)
    assert stored.settings.price == PRICE
    assert (stored.settings.budget_runs, stored.settings.budget_cost) == (5, Fraction(9))
    assert stored.status_reason == "budget spent" and len(stored.records) == 5
    saved = load_last_used()  # typed as text, remembered as typed (the key never)
    assert (saved["price_in"], saved["price_out"]) == ("0.15", "0.60")
    assert (saved["budget_runs"], saved["budget_cost"]) == ("5", "9")
    assert "key" not in saved


async def test_flags_fill_the_cost_fields(app_env: Path) -> None:
    flags = ["--price-in", "0.15", "--price-out", "0.6", "--budget-runs", "40"]
    values, configured = form_values(parse(flags), {})
    assert configured
    app = PasskApp(form=values, show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfigureScreen)
        assert not app.screen.query_one("#cost", Collapsible).collapsed
        typed = {
            n: app.screen.query_one(f"#input-{n}", Input).value
            for n in ("price_in", "price_out", "budget_runs", "budget_cost")
        }
        assert typed == {
            "price_in": "0.15",
            "price_out": "0.6",
            "budget_runs": "40",
            "budget_cost": "",
        }


async def test_a_resume_from_history_keeps_the_stored_prices(
    app_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    priced = replace(blocking(), price=PRICE, budget_runs=50)
    app = PasskApp(show_timing=False)
    async with app.run_test(size=SIZE) as pilot:
        app.controller.start_evaluation(priced, None)
        progress = app.controller.view.progress
        await wait_for(pilot, lambda: progress.finished == 2 and progress.in_flight == 2)
        evaluation_id = app.controller.view.evaluation_id
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
        await pilot.press("f2")
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("u")  # no prices asked: the stored ones are kept
        await wait_for(pilot, lambda: app.controller.view.progress.in_flight == 2)
        assert app.controller.view.evaluation_id == evaluation_id
        assert (
            app.controller.view.settings.price == PRICE
            and app.controller.view.settings.budget_runs == 50
        )
        app.controller.cancel_evaluation()
        await run_to_end(pilot)
    stored = Store.open().load(evaluation_id)
    assert stored.settings.price == PRICE and stored.settings.budget_runs == 50
    # Other prices on a resume are refused before the app opens, as headless.
    again = ["--resume", evaluation_id, "--price-in", "0.2", "--price-out", "0.6"]
    assert run_app(parse(again), {}) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == (
        f"passk-tui: --resume {evaluation_id}: its prices are kept (stored: 0.15/0.6 per "
        "million tokens in/out); start a new evaluation to price it otherwise\n"
    )
