"""An evaluation made from Python is one like any other: the CLI lists, resumes and compares it,
and says in one line why it cannot run a callable's attempts itself."""

from __future__ import annotations

import passk_tui
from tests.api.test_evaluate import SEED, scripted
from tests.support.cli import SEED_TABLE, run


def test_history_lists_it_resume_shows_it_compare_compares_it() -> None:
    first = passk_tui.evaluate(scripted, cases=SEED, name="mine", version=1)
    second = passk_tui.evaluate(lambda answer: answer["answer"], cases=SEED, name="mine", version=2)
    listed = run("history", headless=False)
    assert listed.returncode == 0, listed.stderr
    assert first.id in listed.stdout and second.id in listed.stdout
    resumed = run("--resume", first.id)
    assert (resumed.returncode, resumed.stdout) == (0, SEED_TABLE)
    compared = run("compare", first.id, second.id, headless=False)
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout.startswith("case        A passed  A errored  B passed")
    assert "A: mine v1: python tests.api.test_evaluate.scripted" in compared.stdout


def test_resume_of_a_callables_unfinished_evaluation_says_where_it_can_run() -> None:
    made = passk_tui.evaluate(scripted, cases=SEED)
    refused = run("--resume", made.id, "--attempts", "7")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        f"passk-tui: --resume {made.id}: its agent is the Python callable "
        "tests.api.test_evaluate.scripted, which only Python can run: "
        f"passk_tui.evaluate(agent, resume={made.id!r})\n"
    )
    extended = passk_tui.evaluate(scripted, resume=made.id, attempts=7)
    assert extended.id == made.id and [c.attempts for c in extended.cases] == [7, 7, 7]
    assert run("--resume", made.id).returncode == 0  # every attempt in: the CLI shows it


def test_resume_with_another_callable_is_refused() -> None:
    made = passk_tui.evaluate(scripted, cases=SEED)
    try:
        passk_tui.evaluate(lambda answer: "x", resume=made.id, attempts=6)
    except passk_tui.InputError as exc:
        assert "would change what is measured" in str(exc)
    else:
        raise AssertionError("resumed with another callable")
