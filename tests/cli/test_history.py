"""`passk-tui history`: the stored evaluations as a plain table, newest first."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import datetime
from fractions import Fraction
from pathlib import Path

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.store import Store
from tests.support.cli import run
from tests.support.records import record


def history(*args: str) -> subprocess.CompletedProcess[str]:
    """`passk-tui history args` in its own process, in this test's environment as it is."""
    return run("history", *args, headless=False, timeout=30, env=os.environ.copy())


def passed(case_index: int, attempt: int, outcome: Outcome = Outcome.PASSED) -> AttemptRecord:
    return record(
        case_index, attempt, outcome, case=f"c{case_index}", key="k", status="completed",
        output="x", reason=None, error=None, run_id=None, turn_id=None, started=0.0, ended=1.0,
        usage=None,
    )  # fmt: skip


def test_history_lists_every_evaluation_newest_first() -> None:
    cases = [Case("c0", "a", None), Case("c1", "b", None)]
    with Store.open() as store:
        gated = Settings("support-bot", 3, "/x/cases.toml", attempts=2, k=2, require=Fraction(1))
        store.create_evaluation("ev_old", gated, cases, "h", created=1_700_000_000.0)
        store.write(
            "ev_old",
            [passed(0, 1), passed(0, 2), passed(1, 1, Outcome.WRONG), passed(1, 2, Outcome.WRONG)],
        )
        store.finish("ev_old", "done")
        plain = Settings("calc", 12, "/x/cases.toml", attempts=5, k=3)
        store.create_evaluation("ev_new", plain, cases, "h", created=1_700_086_400.0)
        store.write("ev_new", [passed(1, 4)])
    result = history()
    assert result.returncode == 0, result.stderr
    when = [
        datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M") for t in (1_700_086_400, 1_700_000_000)
    ]
    assert result.stdout == (
        "id      when              agent        version  cases  attempts  status       under gate\n"
        "------  ----------------  -----------  -------  -----  --------  -----------  ----------\n"
        f"ev_new  {when[0]}  calc         12       2      1/10      interrupted  -\n"
        f"ev_old  {when[1]}  support-bot  3        2      4/4       done         1\n"
    )


def test_empty_history_says_so_on_stderr() -> None:
    result = history()
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.startswith("passk-tui: no evaluations stored yet (")


def test_history_help_and_bad_flag() -> None:
    assert "newest first" in history("--help").stdout
    bad = history("--nope")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_history_needs_no_textual(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom passk_tui.cli.main import main\n"
        "assert main(['history']) == 0 and 'textual' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30, capture_output=True)


def test_under_gate_is_undefined_while_a_case_has_fewer_than_k_attempts() -> None:
    """1 wrong of 1 attempt is no pass@2 of 0.00: the count would look final, so it is `-`."""
    cases = [Case("c0", "a", None), Case("c1", "b", None)]
    gated = Settings("bot", 1, "/x/cases.toml", attempts=2, k=2, require=Fraction(1))
    with Store.open() as store:
        store.create_evaluation("ev_cut", gated, cases, "h", created=1_700_000_000.0)
        store.write("ev_cut", [passed(0, 1), passed(0, 2), passed(1, 1, Outcome.WRONG)])
        store.finish("ev_cut", "cancelled")
        [summary] = store.list_evaluations()
    assert summary.under_gate is None and summary.decided == 0
    assert history().stdout.splitlines()[-1].endswith("cancelled  -")


def test_a_run_that_never_started_is_not_listed_as_failed(tmp_path: Path) -> None:
    """Exit 3 before the first attempt (nothing listens at the stack's address): History says
    `not started`, not `failed 0/25`; one that failed after its attempts began stays failed."""
    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cases = tmp_path / "cases.toml"
    cases.write_text('[[cases]]\nname = "a"\ninput = "x"\ncheck = { equals = "x" }\n')
    env = {**os.environ, "PASSK_KEY": "sk-never-started-1"}
    argv = ["--stack", f"http://127.0.0.1:{port}", "--agent", "demo", "--version", "1"]
    unreachable = run(*argv, "--cases", str(cases), "--attempts", "25", env=env)
    assert unreachable.returncode == 3, unreachable.stderr
    with Store.open() as store:
        plain = Settings("calc", 2, str(cases), attempts=2, k=1)
        store.create_evaluation("ev_began", plain, [Case("a", "x", None)], "h", created=1.0)
        store.write("ev_began", [passed(0, 1, Outcome.WRONG)])
        store.finish("ev_began", "failed")
    rows = [line.split("  ") for line in history().stdout.splitlines()[2:]]
    statuses = [[cell.strip() for cell in row if cell.strip()][5:7] for row in rows]
    assert statuses == [["0/25", "not started"], ["1/2", "failed"]]
