"""A schema row says a name once where its setting, keyword and column are that name: the
table each face reads is still the one spelled out in full before rows said it once."""

from __future__ import annotations

from passk_tui.core.inputs.schema import FIELDS

#: Every field's (name, flag, setting, keyword, column), as the table read when each row
#: spelled out all three; None: it has none (the API takes it otherwise, it is not stored).
SPELLED_OUT = (
    ("agent", "--agent", "agent", None, "agent"),
    ("version", "--version", "version", "version", "version"),
    ("cases", "--cases", "cases_path", "cases", "cases_path"),
    ("attempts", "--attempts", "attempts", "attempts", "attempts"),
    ("max_attempts", "--max-attempts", "max_attempts", "max_attempts", "max_attempts"),
    ("precision", "--precision", "precision", "precision", "precision"),
    ("k", "--k", "k", "k", "k"),
    (
        "completion_only",
        "--completion-only",
        "completion_only",
        "completion_only",
        "completion_only",
    ),
    ("baseline", "--baseline", None, "baseline", None),
    ("require", "--require", "require", "require", "require"),
    ("confidence", "--confidence", "confidence", "confidence", "confidence"),
    ("family_wise", "--family-wise", "family_wise", "family_wise", "family_wise"),
    ("concurrency", "--concurrency", "concurrency", "concurrency", "concurrency"),
    ("executor", "--executor", "executor", None, "executor"),
    ("ray_address", "--ray-address", "ray_address", None, "ray_address"),
    ("timeout", "--timeout", "timeout", "timeout", "timeout"),
    ("stack", "--stack", "stack", None, "stack"),
    ("key", "--key", None, None, None),
    ("agents", "--agents", "agents_path", "agents", "agents_path"),
    ("label", "--label", "label", None, "label"),
    ("price_in", "--price-in", None, "price_in", "price_in"),
    ("price_out", "--price-out", None, "price_out", "price_out"),
    ("budget_runs", "--budget-runs", "budget_runs", "budget_runs", "budget_runs"),
    ("budget_cost", "--budget-cost", "budget_cost", "budget_cost", "budget_cost"),
    ("budget_errors", "--budget-errors", "budget_errors", "budget_errors", "budget_errors"),
)


def test_the_table_reads_as_it_did_when_every_row_spelled_each_name_out() -> None:
    assert tuple((f.name, f.flag, f.setting, f.keyword, f.column) for f in FIELDS) == SPELLED_OUT
