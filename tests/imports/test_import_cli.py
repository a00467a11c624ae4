"""`passk-tui import` as a user runs it: the table, the gate's exit, one evaluation per file,
--resume refused, compare across imports, bad files named with their record."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from passk_tui.store import Store
from tests.support.cli import run
from tests.support.zips import spoil_member

FIXTURES = Path(__file__).parent.parent / "fixtures" / "imports"
RUN1 = FIXTURES / "inspect-run1.eval"

RUN1_TABLE = """\
case         passed  wrong  errored  pass@1  pass@3  all passed
-----------  ------  -----  -------  ------  ------  ----------
product-1    0/5     5      0        0.00    0.00    no
product-2    3/5     2      0        0.60    1.00    no
product-3    3/5     2      0        0.60    1.00    no
product-4    4/5     1      0        0.80    1.00    no
never-right  0/5     5      0        0.00    0.00    no
tool-error   3/5     0      2        0.60    1.00    no
"""


def passk(*args: str) -> subprocess.CompletedProcess[str]:
    return run(*args, headless=False, timeout=60, env=os.environ.copy())


def stored_ids() -> list[str]:
    with Store.open() as store:
        return [s.id for s in store.list_evaluations()]


def test_an_inspect_log_is_shown_and_stored_as_a_run_of_ours(tmp_path: Path) -> None:
    result = passk("import", "inspect", str(RUN1), "--export", str(tmp_path / "out.json"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == RUN1_TABLE
    assert result.stderr.splitlines()[0] == (
        "passk-tui: imported 30 attempts of 6 cases: 13 passed, 15 wrong, 2 errored (score match)"
    )
    exported = json.loads((tmp_path / "out.json").read_text())
    definition = exported["evaluation"]["agent_definition"]
    assert definition["kind"] == "import" and definition["tool"] == "inspect"
    assert definition["tool_version"] == "0.3.285"
    assert definition["files"] == [
        {"path": str(RUN1.resolve()), "sha256": hashlib.sha256(RUN1.read_bytes()).hexdigest()}
    ]
    assert exported["evaluation"]["agent"] == "openai-api/fake/fake-model"
    product_2 = exported["cases"][1]
    assert product_2["curve"] == {
        "k": [1, 2, 3, 4, 5],
        "pass_at_k": ["3/5", "9/10", "1", "1", "1"],
        "pass_hat_k": ["3/5", "3/10", "1/10", "0", "0"],
    }


def test_the_same_file_again_is_the_stored_evaluation_with_the_settings_given_now() -> None:
    first = passk("import", "inspect", str(RUN1))
    again = passk("import", "inspect", str(RUN1), "--k", "5", "--require", "0.9")
    assert first.returncode == 0 and again.returncode == 1, again.stderr
    (only,) = stored_ids()
    assert f"already imported as evaluation {only}" in again.stderr
    assert again.stdout.splitlines()[0].split()[5] == "pass@5"
    assert "gate: never-right: pass@5 0.00, 0 of 5 errored, is below --require 0.9" in again.stderr
    with Store.open() as store:
        assert store.load(only).settings.k == 5


def test_resume_of_an_import_is_bad_input() -> None:
    passk("import", "inspect", str(RUN1))
    (only,) = stored_ids()
    result = run("--resume", only, timeout=60, env=os.environ.copy())
    assert result.returncode == 2
    assert result.stderr == (
        f"passk-tui: --resume {only}: it was imported from inspect 0.3.285: "
        f"{RUN1.name}; passk-tui cannot run more of it\n"
    )


def test_two_inspect_runs_compare_case_by_case() -> None:
    passk("import", "inspect", str(RUN1))
    passk("import", "inspect", str(FIXTURES / "inspect-run2.eval"))
    result = passk("compare", "last~1", "last")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0] for line in result.stdout.splitlines()[2:8]}
    assert rows == {"product-1", "product-2", "product-3", "product-4", "never-right", "tool-error"}
    assert "is not what it was" not in result.stderr


def test_a_bad_line_stores_nothing(tmp_path: Path) -> None:
    attempts = tmp_path / "attempts.jsonl"
    good = {"case": "a", "attempt": 1, "outcome": "passed"}
    attempts.write_text(json.dumps(good) + "\n" + '{"case": "a", "attempt": 2, "outcome": "ok"}\n')
    result = passk("import", "jsonl", str(attempts))
    assert result.returncode == 2
    assert result.stderr == (
        f"passk-tui: {attempts}: line 2 ('a'): outcome must be passed, wrong or errored, got \"ok\"\n"
    )
    assert result.stdout == "" and stored_ids() == []


def test_a_damaged_eval_archive_is_named_with_its_member(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.eval"
    shutil.copy(RUN1, damaged)
    spoil_member(damaged, "summaries.json", 8, b"\x00\x00\x00\x00")
    result = passk("import", "inspect", str(damaged))
    assert result.returncode == 2
    assert result.stderr.startswith(f"passk-tui: {damaged}: summaries.json: ")
    assert len(result.stderr.splitlines()) == 1 and stored_ids() == []


def test_a_file_of_another_format_says_which_command_reads_it() -> None:
    result = passk("import", "inspect", str(FIXTURES / "promptfoo-results.json"))
    assert result.returncode == 2
    assert result.stderr == (
        f"passk-tui: {FIXTURES / 'promptfoo-results.json'}: this is a promptfoo results file; "
        "use `import promptfoo`\n"
    )


def test_every_face_reads_an_import(tmp_path: Path) -> None:
    """The HTML report, plan --from and history read it as any stored evaluation."""
    report = tmp_path / "report.html"
    result = passk(
        "import", "tau-bench", str(FIXTURES / "tau-bench-results.json"), "--export", str(report)
    )
    assert result.returncode == 0, result.stderr
    page = report.read_text()
    assert "imported from tau-bench 1: tau-bench-results.json" in page
    # Before: each case's check read "none: passes when its Turn completes".
    assert "none: decided by tau-bench (imported), not by a check of ours" in page
    assert "passes when its Turn completes" not in page
    plan = passk("plan", "--from", "last", "--require", "0.5")
    assert plan.returncode == 0, plan.stderr
    history = passk("history")
    assert history.returncode == 0 and "tau-bench" in history.stdout


def test_family_wise_needs_a_gate_and_a_level() -> None:
    result = passk("import", "inspect", str(RUN1), "--family-wise")
    assert result.returncode == 2
    assert result.stderr.startswith("passk-tui: --family-wise: needs --require and --confidence")
    assert stored_ids() == []
