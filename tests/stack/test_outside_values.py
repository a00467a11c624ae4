"""Values from outside (a hostile stack, a broken agent) are kept, scrubbed and bounded, never lost.

Lone surrogates in a Turn's output, error and run id; a stack that echoes the
Authorization header; an answer of several MiB; a store write that fails.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path

import pytest

from passk_tui.core.inputs.bounds import OUTPUT_LIMIT
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.engine import Evaluation
from passk_tui.evaluations.new import new_evaluation
from passk_tui.evaluations.resume import resume_evaluation
from passk_tui.store import DB_NAME, Store
from passk_tui.store import rows as layout
from tests.support.cli import KEY, run
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.stack_server import StackScript, StackServer, TurnScript

CASES = """\
[[cases]]
name = "greet"
input = "hi"
check = { contains = "love" }

[[cases]]
name = "broken"
input = "x"
check = { equals = "x" }

[[cases]]
name = "odd-id"
input = "y"
check = { equals = "y" }
"""


def surrogate_turn(case: str, attempt: int) -> TurnScript:
    """An emoji cut in half, in the output, the error and the run id."""
    if case == "greet":
        return TurnScript(output="I love \ud83d", latency=0.01)
    if case == "broken":
        return TurnScript(status="failed", error="tool said \udc80 and died", latency=0.01)
    return TurnScript(output="y", run_id=f"run_\ud800{attempt}", latency=0.01)


def rows_of(table: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in table.splitlines()[2:]}


def stored(tmp_path: Path):
    with Store.open(tmp_path / "data" / DB_NAME) as store:
        return store.load(store.resolve("last"))


def test_lone_surrogates_from_the_stack_are_kept_escaped_not_lost(
    make_stack, tmp_path: Path
) -> None:
    stack = make_stack(keys={KEY: None}, script=StackScript(turns=surrogate_turn))
    cases = tmp_path / "cases.toml"
    cases.write_text(CASES)
    flags = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    result = run(
        *flags, "--attempts", "2", "--k", "1", data=tmp_path / "data", key=KEY, timeout=120
    )
    assert result.returncode == 0, result.stderr
    table = rows_of(result.stdout)
    assert table["greet"][:3] == ["2/2", "0", "0"]
    assert table["broken"][:3] == ["0/2", "0", "2"]
    assert table["odd-id"][:3] == ["2/2", "0", "0"]
    evaluation = stored(tmp_path)
    assert len(evaluation.records) == 6 and evaluation.status == "done"
    by_case = {(r.case, r.attempt): r for r in evaluation.records}
    assert by_case["greet", 1].output == "I love \\ud83d"
    assert "tool said \\udc80 and died" in by_case["broken", 2].error
    assert by_case["odd-id", 2].run_id == "run_\\ud8002"


async def test_a_lone_surrogate_from_a_local_openai_agent_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeOpenAI()
    base_url = await server.start()
    try:
        server.push(Reply(content="I love \ud83d"), Reply(content="love \udfff"))
        agents = tmp_path / "agents.toml"
        agents.write_text(
            f'[agents.llm.versions.1]\nopenai = {{ base_url = "{base_url}", model = "m" }}\n'
        )
        cases = tmp_path / "cases.toml"
        cases.write_text('[[cases]]\nname = "greet"\ninput = "hi"\ncheck = { contains = "love" }\n')
        settings = Settings("llm", 1, str(cases), attempts=2, k=1, agents_path=str(agents))
        evaluation = new_evaluation(settings, None)
        try:
            assert await evaluation.run() == "done"
        finally:
            await evaluation.target.aclose()
    finally:
        await server.stop()
    records = evaluation.store.load(evaluation.evaluation_id).records
    assert sorted(r.output for r in records) == ["I love \\ud83d", "love \\udfff"]
    assert all(r.outcome == "passed" for r in records)


async def run_and_close(evaluation: Evaluation) -> str:
    try:
        return await evaluation.run()
    finally:
        await evaluation.target.aclose()


def test_a_failed_store_write_fails_the_evaluation_and_resume_repairs_it(
    stack: StackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = tmp_path / "cases.toml"
    cases.write_text('[[cases]]\nname = "echo"\ninput = "e"\ncheck = { equals = "e" }\n')
    settings = Settings("demo", 1, str(cases), attempts=3, k=1, stack=stack.url)
    real_row = layout.record_row
    calls = []

    def unbindable_once(evaluation_id, record):
        calls.append(record)
        if len(calls) == 1:
            raise ValueError("a value the store cannot encode")
        return real_row(evaluation_id, record)

    monkeypatch.setattr(layout, "record_row", unbindable_once)
    evaluation = new_evaluation(settings, "secret-key")
    assert asyncio.run(run_and_close(evaluation)) == "failed"
    assert "cannot store finished attempts" in evaluation.error
    stored_now = evaluation.store.load(evaluation.evaluation_id)
    assert stored_now.status == "failed" and stored_now.missing > 0
    resumed = resume_evaluation(evaluation.evaluation_id, "secret-key")
    assert asyncio.run(run_and_close(resumed.evaluation)) == "done"
    after = resumed.evaluation.store.load(evaluation.evaluation_id)
    assert [r.outcome for r in after.records] == ["passed"] * 3


def test_a_key_echoed_by_the_stack_reaches_neither_store_nor_export(
    make_stack, tmp_path: Path
) -> None:
    def echoing(case: str, attempt: int) -> TurnScript:
        if case == "echo":
            return TurnScript(status="failed", echo_authorization=True, latency=0.01)
        return TurnScript(output=f"your key is {KEY}", latency=0.01)

    stack = make_stack(keys={KEY: None}, script=StackScript(turns=echoing))
    cases = tmp_path / "cases.toml"
    cases.write_text(
        '[[cases]]\nname = "echo"\ninput = "e"\ncheck = { equals = "e" }\n'
        '[[cases]]\nname = "says"\ninput = "s"\ncheck = { contains = "key" }\n'
    )
    export = tmp_path / "out.json"
    flags = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    result = run(
        *flags,
        "--attempts",
        "2",
        "--k",
        "1",
        "--export",
        str(export),
        data=tmp_path / "data",
        key=KEY,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert KEY not in result.stdout + result.stderr
    for path in [export, *(tmp_path / "data").rglob("*")]:
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    by_case = {r.case: r for r in stored(tmp_path).records}
    assert by_case["echo"].error.endswith("(Authorization: Bearer ***)")
    assert by_case["says"].output == "your key is ***"
    assert json.loads(export.read_text())  # the export is whole, only the key is masked


def test_an_answer_past_the_limit_is_judged_whole_but_kept_as_a_prefix(tmp_path: Path) -> None:
    size = 3 * OUTPUT_LIMIT
    program = f"import sys; sys.stdout.write('x' * {size - 3} + 'END')"
    agents = tmp_path / "agents.toml"
    agents.write_text(
        f"[agents.big.versions.1]\ncommand = [{json.dumps(sys.executable)}, "
        f"'-c', {json.dumps(program)}]\n"
    )
    cases = tmp_path / "cases.toml"
    cases.write_text('[[cases]]\nname = "big"\ninput = "go"\ncheck = { contains = "END" }\n')
    flags = ["--agents", str(agents), "--agent", "big", "--version", "1", "--cases", str(cases)]
    result = run(*flags, "--attempts", "3", data=tmp_path / "data", key=None, timeout=120)
    assert result.returncode == 0, result.stderr
    assert rows_of(result.stdout)["big"][:3] == ["3/3", "0", "0"]
    records = stored(tmp_path).records
    assert [len(r.output) for r in records] == [OUTPUT_LIMIT] * 3
    assert [r.output_size for r in records] == [size] * 3
    store_bytes = sum(p.stat().st_size for p in (tmp_path / "data").glob(f"{DB_NAME}*"))
    assert store_bytes < 2 * size  # whole answers would take 3 * size


@pytest.mark.parametrize(
    "output",
    ["x" * (OUTPUT_LIMIT + 1), {"list": ["y" * 100] * (OUTPUT_LIMIT // 100)}],
    ids=["text", "json"],
)
def test_a_cut_answer_reads_back_as_its_prefix_and_full_size(output: object) -> None:
    whole = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    kept, size = layout.output_from_column(layout.output_column(output, None))
    assert kept == whole[:OUTPUT_LIMIT] and size == len(whole)


@pytest.mark.parametrize("output", ["short", {"a": [1, "two"]}, None, 3.5, '"quoted" 12'])
def test_an_answer_within_the_limit_reads_back_as_it_was(output: object) -> None:
    assert layout.output_from_column(layout.output_column(output, None)) == (output, None)


def test_a_failed_start_keeps_its_row_but_no_copy_of_the_cases(
    stack: StackServer, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.jsonl"
    row = {"input": "x" * 500, "check": {"equals": "x"}}
    cases.write_text("".join(json.dumps({"name": f"c{i}", **row}) + "\n" for i in range(1000)))
    flags = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    flags += ["--attempts", "1", "--k", "1", "--concurrency", "50"]
    for _ in range(2):
        refused = run(*flags, data=tmp_path / "data", key="sk-WRONG-KEY-1234", timeout=120)
        assert refused.returncode == 3, refused.stderr
    with Store.open(tmp_path / "data" / DB_NAME) as store:
        summaries = store.list_evaluations()
        assert [s.status for s in summaries] == ["failed", "failed"]
        assert [s.cases for s in summaries] == [1000, 1000]
    with sqlite3.connect(tmp_path / "data" / DB_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM cases").fetchone() == (0,)
    resumed = run(
        "--resume", "last", data=tmp_path / "data", key="secret-key", timeout=120
    )  # the file is unchanged
    assert resumed.returncode == 0, resumed.stderr
    assert len(resumed.stdout.splitlines()) == 2 + 1000
    with Store.open(tmp_path / "data" / DB_NAME) as store:
        again = store.load(store.resolve("last"))
        assert len(again.cases) == len(again.records) == 1000
    cases.write_text(cases.read_text().replace("c999", "changed"))
    refused = run("--resume", summaries[1].id, data=tmp_path / "data", key=KEY, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"passk-tui: --resume {summaries[1].id}: it failed before any attempt ran, so its "
        f"cases were not kept, and {cases} is gone or changed; start a new evaluation\n"
    )


def test_an_evaluations_end_error_with_a_lone_surrogate_is_stored(
    stack: StackServer, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.toml"
    cases.write_text('[[cases]]\nname = "echo"\ninput = "e"\ncheck = { equals = "e" }\n')
    evaluation = new_evaluation(Settings("demo", 1, str(cases), stack=stack.url), "secret-key")
    evaluation.store.finish(evaluation.evaluation_id, "failed", "the stack said \ud83d")
    assert evaluation.store.load(evaluation.evaluation_id).error == "the stack said \\ud83d"
    asyncio.run(evaluation.target.aclose())


def test_resume_repairs_a_done_evaluation_with_attempts_missing(make_stack, tmp_path: Path) -> None:
    stack = make_stack(keys={KEY: None}, script=StackScript(turns=surrogate_turn))
    cases = tmp_path / "cases.toml"
    cases.write_text(CASES)
    flags = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    assert (
        run(
            *flags, "--attempts", "2", "--k", "1", data=tmp_path / "data", key=KEY, timeout=120
        ).returncode
        == 0
    )
    # What an older passk-tui left: the batches it could not store dropped, yet "done".
    with sqlite3.connect(tmp_path / "data" / DB_NAME) as db:
        db.execute("DELETE FROM attempts WHERE case_name != 'broken'")
    resumed = run("--resume", "last", data=tmp_path / "data", key=KEY, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    table = rows_of(resumed.stdout)
    assert table["greet"][:3] == ["2/2", "0", "0"] and table["odd-id"][:3] == ["2/2", "0", "0"]
    assert len(stored(tmp_path).records) == 6
