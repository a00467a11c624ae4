"""--help on the budgets says what a run of several evaluations does with them: each version
of --baseline and each target of a matrix is its own evaluation, with its own budget."""

from __future__ import annotations

import pytest

from passk_tui.cli.flags import build_parser
from passk_tui.core.inputs.schema import FIELDS

BUDGETS = ("--budget-runs N", "--budget-cost USD", "--budget-errors N")


def flag_help(flag: str) -> str:
    """What ``passk-tui --help`` says of ``flag``: its entry's line and the deeper indented
    lines that carry it on, argparse's wrapping folded."""
    lines = iter(build_parser().format_help().splitlines())
    entry = next(line for line in lines if line.startswith(f"  {flag} "))
    carried = []
    for line in lines:
        if not line.startswith(" " * 4):
            break
        carried.append(line)
    return " ".join(" ".join([entry, *carried]).split()).removeprefix(f"{flag} ")


@pytest.mark.parametrize("flag", BUDGETS)
def test_each_budget_holds_for_each_target_of_a_matrix(flag: str) -> None:
    words = flag_help(flag)
    assert "each version of --baseline and each target of a matrix has its own" in words, words


def test_the_budgets_help_reads_as_each_one_does() -> None:
    assert flag_help("--budget-cost USD") == (
        "start no attempt once this much is spent (needs prices; each version of --baseline "
        "and each target of a matrix has its own); then end 'budget spent'"
    )
    assert flag_help("--budget-errors N") == (
        "start no attempt once N attempts have errored (resumes included; each version of "
        "--baseline and each target of a matrix has its own N): a broken agent or stack "
        "spends nothing more; then end 'budget spent'"
    )


@pytest.mark.parametrize("name", ["budget_runs", "budget_cost"])
def test_the_forms_budget_tooltips_say_so_too(name: str) -> None:
    """The Configure form's hover text on each budget it shows says what --help says."""
    (field,) = [f for f in FIELDS if f.name == name]
    assert field.label is not None
    assert "each version of --baseline and each target of a matrix has its own" in field.tooltip
