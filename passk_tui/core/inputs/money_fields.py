"""The settings of what an evaluation may cost (``--help``'s "what it may cost"): the prices and
the budgets, rows of the settings schema (``core.inputs.schema``) kept apart to keep it short.
"""

from __future__ import annotations

from passk_tui.core.inputs.field import (
    Field,
    Group,
    Kind,
    Resume,
    at_least_one,
    money_amount,
    parse_attempts,
    parse_money,
    parse_price,
    price_amount,
)

#: What each budget's help says of evaluations run together: each is its own evaluation, with
#: its own budget (stderr says so of Runs and money before they run: ``group_budget_line``).
OWN_BUDGET = "each version of --baseline and each target of a matrix has its own"

#: Read through ``schema.FIELDS``, whose ``named`` gives a row its name for the setting,
#: keyword and column it leaves out.
MONEY_FIELDS: tuple[Field, ...] = (
    Field(
        "price_in",
        "--price-in",
        Group.MONEY,
        "a stack agent's price per million input tokens",
        "P",
        parse=parse_price,
        rule=price_amount,
        setting=None,
        label="Price in",
        placeholder="USD per million tokens in",
        tooltip="--price-in: what a million input tokens cost, in USD. A local agent's price "
        "is in its agents file (price = { input_per_mtok, output_per_mtok }); one typed here wins "
        "over the file. Give both prices, or neither.",
        resume=Resume.PRICE,
        kind=Kind.MONEY,
    ),
    Field(
        "price_out",
        "--price-out",
        Group.MONEY,
        "a stack agent's price per million output tokens",
        "P",
        parse=parse_price,
        rule=price_amount,
        setting=None,
        label="Price out",
        placeholder="USD per million tokens out",
        tooltip="--price-out: what a million output tokens cost, in USD. A local agent's "
        "price is in its agents file; one typed here wins over the file.",
        resume=Resume.PRICE,
        kind=Kind.MONEY,
    ),
    Field(
        "budget_runs",
        "--budget-runs",
        Group.MONEY,
        f"start at most N Runs in all (resumes included; {OWN_BUDGET} N); then end "
        "'budget spent'; a resume may lower it, never raise it",
        "N",
        parse=parse_attempts,
        rule=at_least_one,
        label="Budget runs",
        placeholder="Runs at most (no limit)",
        tooltip="--budget-runs: start at most this many Runs in all, resumes included; "
        f"then nothing new starts and the evaluation ends 'budget spent' ({OWN_BUDGET}).",
        resume=Resume.BUDGET,
        kind=Kind.WHOLE,
    ),
    Field(
        "budget_cost",
        "--budget-cost",
        Group.MONEY,
        f"start no attempt once this much is spent (needs prices; {OWN_BUDGET}); then end "
        "'budget spent'",
        "USD",
        parse=parse_money,
        rule=money_amount,
        label="Budget cost",
        placeholder="USD at most (no limit)",
        tooltip="--budget-cost: start no attempt once this much (USD) is spent; needs "
        f"prices, typed here or in a local agent's agents file ({OWN_BUDGET}).",
        resume=Resume.BUDGET,
        kind=Kind.MONEY,
    ),
    Field(
        "budget_errors",
        "--budget-errors",
        Group.MONEY,
        f"start no attempt once N attempts have errored (resumes included; {OWN_BUDGET} N): "
        "a broken agent or stack spends nothing more; then end 'budget spent'",
        "N",
        parse=parse_attempts,
        rule=at_least_one,
        resume=Resume.BUDGET,
        kind=Kind.WHOLE,
    ),
)
