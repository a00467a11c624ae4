"""The resume tests' suite, stack script and key, and the count of attempts a store holds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from passk_tui.store import DB_NAME
from tests.support.stack_server import StackScript, StackServer, TurnScript

KEY = "sk-PASSK-resume-8d1e77c2"


CASES = """\
[[cases]]
name = "alpha"
input = "alpha"
check = { equals = "alpha" }

[[cases]]
name = "beta"
input = "beta"
check = { equals = "beta" }

[[cases]]
name = "gamma"
input = "gamma"
check = { equals = "gamma" }
"""


EXPECTED = """\
case   passed  wrong  errored  pass@1  pass@3  all passed
-----  ------  -----  -------  ------  ------  ----------
alpha  4/4     0      0        1.00    1.00    yes
beta   2/4     2      0        0.50    1.00    no
gamma  3/4     0      1        0.75    1.00    no
"""


def slow_script(latency: float) -> StackScript:
    def turn(case: str, attempt: int) -> TurnScript:
        if case == "beta" and attempt in (2, 4):
            return TurnScript(output="not beta", latency=latency)
        if case == "gamma" and attempt == 3:
            return TurnScript(status="failed", error="tool crashed", latency=latency)
        return TurnScript(latency=latency)

    return StackScript(turns=turn)


def recorded(data: Path) -> int:
    path = data / DB_NAME
    if not path.exists():
        return 0
    with sqlite3.connect(path, timeout=5) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
        except sqlite3.OperationalError:  # the schema is not there yet
            return 0


def start_args(stack: StackServer, cases: Path, *more: str) -> list[str]:
    return [
        "--stack",
        stack.url,
        "--agent",
        "demo",
        "--version",
        "1",
        "--cases",
        str(cases),
        "--attempts",
        "4",
        *more,
    ]
