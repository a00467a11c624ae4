"""A stack's usage count past any Turn's (1 followed by 400 zeros, or Infinity) is refused where
it enters, named, and counted as unknown; a store that already holds one still opens, exports
and resumes (it once ended every later reader with an OverflowError)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from passk_tui.store import DB_NAME
from passk_tui.tui.app.app import PasskApp
from passk_tui.tui.screens.costs import CostsScreen
from passk_tui.tui.screens.history import HistoryScreen
from passk_tui.tui.screens.results.screen import ResultsScreen
from tests.support.cli import finish, start
from tests.support.resume import KEY, start_args
from tests.support.stack_server import StackScript, TurnScript

HUGE = 10**400
PAST = "past any Turn's count (at most 1,000,000,000,000); refused, counted as unknown"


def test_a_count_past_any_turns_is_refused_named_and_exports_and_resumes(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    usage = {"input_tokens": HUGE, "output_tokens": float("inf"), "cached": 7}
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript(usage=usage)))
    data, out = tmp_path / "data", tmp_path / "out"
    args = start_args(stack, cases, "--price-in", "1", "--price-out", "1")
    code, table, err = finish(start(*args, "--export", f"{out}.json", data=data, key=KEY))
    assert code == 0 and "Traceback" not in err, err
    named = f"usage.input_tokens on 12 attempts, usage.output_tokens on 12 attempts: {PAST}"
    assert f"passk-tui: warning: {named}\n" in err
    assert table.splitlines()[2].startswith("alpha  4/4")
    attempt = json.loads(Path(f"{out}.json").read_text())["attempts"][0]
    assert attempt["usage"] == {
        "input_tokens": "refused: about 10^400",
        "output_tokens": "refused: inf",
        "cached": 7,
    }
    for suffix in (".csv", ".html", ".md", ".xml"):
        code, _out, err = finish(start("--resume", "last", "--export", f"{out}{suffix}", data=data))
        assert code == 0 and "Traceback" not in err and named in err, err
        assert Path(f"{out}{suffix}").stat().st_size > 0


def poisoned_store(make_stack, cases: Path, data: Path) -> None:
    """A finished evaluation whose store holds the raw count, as passk-tui wrote it before the
    bound (the stack's answer kept verbatim)."""
    stack = make_stack(keys={KEY: None}, script=StackScript(default=TurnScript()))
    args = start_args(stack, cases, "--attempts", "2")
    code, _out, err = finish(start(*args, data=data, key=KEY, cwd=Path(__file__).parents[2]))
    assert code == 0, err
    raw = json.dumps({"input_tokens": HUGE, "output_tokens": 2})
    with sqlite3.connect(data / DB_NAME) as db:
        db.execute("UPDATE attempts SET usage = ?", (raw,))


def test_a_store_that_holds_such_a_count_exports_and_resumes(
    make_stack, cases: Path, tmp_path: Path
) -> None:
    data, out = tmp_path / "data", tmp_path / "out"
    poisoned_store(make_stack, cases, data)
    code, _out, err = finish(start("--resume", "last", "--export", f"{out}.json", data=data))
    assert code == 0 and "Traceback" not in err, err
    assert f"usage.input_tokens on 6 attempts: {PAST}" in err
    case = json.loads(Path(f"{out}.json").read_text())["cases"][0]
    assert case["tokens"]["input"] is None and case["tokens"]["output"] == 4
    code, _out, err = finish(start("--resume", "last", "--export", f"{out}.html", data=data))
    assert code == 0 and "Traceback" not in err, err


async def test_the_app_opens_an_evaluation_whose_store_holds_such_a_count(
    app_env: Path, make_stack, cases: Path
) -> None:
    poisoned_store(make_stack, cases, Path(os.environ["PASSK_DATA_DIR"]))
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        app.screen.action_costs()
        await pilot.pause()
        assert isinstance(app.screen, CostsScreen)
