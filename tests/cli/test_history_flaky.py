"""`passk-tui history --flaky`: a nightly series read per case, imported evaluations among ours,
and the bad inputs (an unknown agent, an empty store) as one line and exit 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from passk_tui.store import Store
from tests.support import CLI_AGENTS
from tests.support.cli import run, scripted
from tests.support.nightly import store_nightly_series


def passk(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run(*args, headless=False, timeout=60, cwd=cwd, env=os.environ.copy())


NIGHTLY_TABLE = """\
case     evaluations  verdict changes  flaky
-------  -----------  ---------------  -----
steady   7            0                no
flipper  7            4                yes
moved    7            0                no
hard     7            0                no
version 1 -> 2: moved regressed 1.00 -> 0.15 (p <0.001)
version 2 -> 3: no case moved beyond chance
"""


def test_a_nightly_series_names_the_flaky_case_and_the_one_that_moved() -> None:
    """Seven nights over three versions: flipper's verdict flips within version 1 (three times,
    all passed) and within version 2 (once, by its gate); moved's drop from version 1 to 2 is
    the only change beyond chance, and nothing moves from 2 to 3."""
    with Store.open() as store:
        store_nightly_series(store)
        store_nightly_series(store, agent="other-bot")
    result = passk("history", "--flaky", "--agent", "nightly-bot")
    assert result.returncode == 0, result.stderr
    assert result.stdout == NIGHTLY_TABLE
    assert result.stderr == (
        "passk-tui: nightly-bot: 7 evaluations (0 imported), versions 1, 2, 3; "
        "a verdict is the gate's, or all passed without one\n"
    )


def test_without_agent_the_newest_evaluations_agent_is_read() -> None:
    with Store.open() as store:
        store_nightly_series(store, agent="older-bot", first=1_700_000_000.0)
        store_nightly_series(store)
    result = passk("history", "--flaky")
    assert result.returncode == 0, result.stderr
    assert result.stdout == NIGHTLY_TABLE
    assert result.stderr.startswith("passk-tui: nightly-bot: 7 evaluations")


def attempts_file(path: Path, passes: dict[str, int], n: int = 5) -> Path:
    """A generic import file: per case, ``passes`` of ``n`` attempts passed, the rest wrong."""
    lines = [
        {"case": case, "attempt": a, "outcome": "passed" if a <= passed else "wrong"}
        for case, passed in passes.items()
        for a in range(1, n + 1)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_imported_evaluations_take_part_beside_a_run_of_ours(tmp_path: Path) -> None:
    """Our run of the seed (arithmetic 3/5, json-shape 0/5, summary 5/5), then another tool's
    log of the same version in which arithmetic passed every attempt, then one of version 2 in
    which summary never passed."""
    agents = tmp_path / "agents"
    shutil.copytree(CLI_AGENTS, agents)
    ours = scripted(agents, "--cases", str(agents / "seed.toml"), env=os.environ.copy())
    assert ours.returncode == 0, ours.stderr
    same_version = attempts_file(
        tmp_path / "v1.jsonl", {"arithmetic": 5, "json-shape": 0, "summary": 5}
    )
    next_version = attempts_file(
        tmp_path / "v2.jsonl", {"arithmetic": 5, "json-shape": 0, "summary": 0}
    )
    for path, version in ((same_version, "1"), (next_version, "2")):
        imported = passk("import", "jsonl", str(path), "--agent", "scripted", "--version", version)
        assert imported.returncode == 0, imported.stderr
    result = passk("history", "--flaky", "--agent", "scripted")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "case        evaluations  verdict changes  flaky\n"
        "----------  -----------  ---------------  -----\n"
        "arithmetic  3            1                yes\n"
        "json-shape  3            0                no\n"
        "summary     3            0                no\n"
        "version 1 -> 2: summary regressed 1.00 -> 0.00 (p <0.001)\n"
    )
    assert "3 evaluations (2 imported), versions 1, 2" in result.stderr


def test_an_unknown_agent_is_one_line_and_exit_2() -> None:
    with Store.open() as store:
        store_nightly_series(store)
    result = passk("history", "--flaky", "--agent", "nightly-bt")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "passk-tui: --agent: no stored evaluation of agent 'nightly-bt' "
        "(did you mean 'nightly-bot'?); stored: nightly-bot\n"
    )


def test_an_empty_store_is_one_line_and_exit_2() -> None:
    result = passk("history", "--flaky")
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("passk-tui: no evaluations stored yet (")


def test_agent_without_flaky_is_bad_input() -> None:
    result = passk("history", "--agent", "calc")
    assert result.returncode == 2
    assert result.stderr == "passk-tui: --agent: only with --flaky (the list shows every agent)\n"
