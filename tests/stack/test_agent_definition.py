"""What an evaluation measured: the resolved agent definition, stored, exported, shown, held to.

Local agents run as real processes, the openai agent talks to the fake endpoint over
HTTP, and the stack ones to the test stack; every face reads the stored definition.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from passk_tui.core.inputs.agent_definition import (
    changes,
    describe,
    public_url,
    same_measure,
    stack_definition,
)
from passk_tui.core.inputs.settings import Settings
from passk_tui.evaluations.new import new_evaluation
from passk_tui.reports.export import export
from passk_tui.store import DB_NAME, Store
from passk_tui.targets.openai import OpenAITarget
from tests.support.cli import KEY, run
from tests.support.fake_openai import FakeOpenAI
from tests.support.stack_server import StackServer

CASES = '[[cases]]\nname = "greet"\ninput = "hi"\ncheck = { equals = "hi" }\n'
AGENT = "import sys\nprint(sys.stdin.read())\n"


def agents_file(folder: Path, *argv: str, name: str = "agents.toml", version: int = 1) -> Path:
    """An agents file whose agent ``a`` runs agent.py (beside it) with ``argv`` after it."""
    (folder / "agent.py").write_text(AGENT)
    command = json.dumps([sys.executable, "agent.py", *argv])
    path = folder / name
    path.write_text(f"[agents.a.versions.{version}]\ncommand = {command}\n")
    return path


def flags(folder: Path, *more: str, version: int = 1) -> list[str]:
    (folder / "cases.toml").write_text(CASES)
    return ["--agent", "a", "--version", str(version), "--cases", str(folder / "cases.toml"), *more]


def stored(ref: str = "last"):
    """An evaluation from the store the CLI runs write to (PASSK_DATA_DIR, set per test)."""
    with Store.open() as store:
        return store.load(store.resolve(ref))


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("passk-tui: warning:")]


# -- the definition itself ----------------------------------------------------------------


def test_a_base_url_keeps_no_credentials() -> None:
    url = "https://user:hunter2-pass@api.example.com/v1?api-key=sk-zzz&api-version=2024-06"
    assert public_url(url) == "https://api.example.com/v1?api-key=***&api-version=2024-06"
    assert public_url("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434/v1"
    assert public_url("http://u:pw@[::1/v1?key=k") == "http://[::1/v1"  # not a URL: no secrets


def test_a_stack_that_moved_measures_the_same_but_a_changed_command_does_not() -> None:
    here = stack_definition("http://127.0.0.1:1", "demo", 2)
    assert same_measure(here, stack_definition("http://localhost:1", "demo", 2))
    assert not same_measure(here, stack_definition("http://127.0.0.1:1", "demo", 3))
    old = {"kind": "command", "command": ["python3", "a.py"], "folder": "/x"}
    new = {**old, "command": ["python3", "b.py"]}
    assert changes(old, new) == ['command changed from ["python3", "a.py"] to ["python3", "b.py"]']
    assert changes(old, {"kind": "stack"}) == ["kind changed from command to stack"]


def test_an_openai_definition_names_the_key_variable_but_never_holds_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-openai-secret-42")
    target = OpenAITarget(
        base_url="http://u:pw-in-url-77@127.0.0.1:9/v1?token=tok-in-url-88",
        model="m",
        system="You are terse.",
        api_key_env="MY_KEY",
        params={"temperature": 0, "user": "sk-openai-secret-42"},
        request_timeout=12.0,
    )
    definition = target.definition
    text = json.dumps(definition)
    for secret in ("sk-openai-secret-42", "pw-in-url-77", "tok-in-url-88"):
        assert secret not in text
    assert definition == {
        "kind": "openai",
        "base_url": "http://127.0.0.1:9/v1?token=***",
        "model": "m",
        "system": "You are terse.",
        "api_key_env": "MY_KEY",
        "params": {"temperature": 0, "user": "***"},
        "timeout": 12.0,
    }


# -- a local command agent, end to end ----------------------------------------------------


def test_a_command_definition_is_stored_in_the_json_and_the_report(tmp_path: Path) -> None:
    agents_file(tmp_path, "--polite")
    result = run(*flags(tmp_path, "--attempts", "2", "--export", str(tmp_path / "out.json")),
                 cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    expected = {
        "kind": "command",
        "command": [sys.executable, "agent.py", "--polite"],
        "folder": str(tmp_path.resolve()),
    }
    document = json.loads((tmp_path / "out.json").read_text())
    assert document["evaluation"]["agent_definition"] == expected
    assert stored().definition == expected
    assert warnings(result.stderr) == []

    shown = run("--resume", "last", "--export", str(tmp_path / "report.html"), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    html = (tmp_path / "report.html").read_text()
    assert shlex.join(expected["command"]) in html
    assert f"<dd>{tmp_path.resolve()}</dd>" in html


def test_editing_the_agents_file_between_two_runs_of_v1_warns_naming_the_change(
    tmp_path: Path,
) -> None:
    agents_file(tmp_path)
    first = run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path)
    assert first.returncode == 0 and warnings(first.stderr) == [], first.stderr
    first_id = stored().id
    agents_file(tmp_path, "--loud")
    second = run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert warnings(second.stderr) == [
        f"passk-tui: warning: a v1 is not what it was in evaluation {first_id}: command changed "
        f'from ["{sys.executable}", "agent.py"] to ["{sys.executable}", "agent.py", "--loud"]'
    ]
    again = run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path)
    assert again.returncode == 0 and warnings(again.stderr) == [], again.stderr


def test_resume_with_another_agents_file_is_refused_unless_it_resolves_the_same(
    tmp_path: Path,
) -> None:
    agents_file(tmp_path)
    assert run(*flags(tmp_path, "--attempts", "2"), cwd=tmp_path).returncode == 0
    evaluation_id = stored().id
    other = agents_file(tmp_path, "--other", name="other.toml")
    agents_file(tmp_path)  # agent.py again; agents.toml as it was

    refused = run("--resume", "last", "--attempts", "4", "--agents", str(other), cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        f"passk-tui: --resume {evaluation_id}: --agents {other} would change what is measured "
        f'(command changed from ["{sys.executable}", "agent.py"] to ["{sys.executable}", '
        '"agent.py", "--other"]); start a new evaluation instead'
    ]
    after = stored()
    assert len(after.records) == 2 and after.settings.attempts == 2  # nothing started

    copy = tmp_path / "copy.toml"
    shutil.copy(tmp_path / "agents.toml", copy)
    allowed = run("--resume", "last", "--attempts", "4", "--agents", str(copy), cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    assert len(stored().records) == 4


def test_resume_after_the_agents_file_was_edited_is_refused(tmp_path: Path) -> None:
    agents_file(tmp_path)
    assert run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path).returncode == 0
    agents_file(tmp_path, "--edited")
    refused = run("--resume", "last", "--attempts", "2", cwd=tmp_path)
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert "a v1 now would change what is measured (command changed from" in line
    assert len(stored().records) == 1


def test_one_that_failed_to_start_takes_the_fixed_definition_and_warns_no_one(
    tmp_path: Path,
) -> None:
    """Nothing was measured with a typo in the file: the fix is no change of what "v1" means."""
    (tmp_path / "agents.toml").write_text('[agents.a.versions.1]\ncommand = ["no-such-passk-x"]\n')
    failed = run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path)
    assert failed.returncode == 3, failed.stderr
    agents_file(tmp_path)
    resumed = run("--resume", "last", cwd=tmp_path)
    assert resumed.returncode == 0 and warnings(resumed.stderr) == [], resumed.stderr
    assert stored().definition["command"] == [sys.executable, "agent.py"]
    (tmp_path / "agents.toml").write_text('[agents.a.versions.1]\ncommand = ["no-such-passk-y"]\n')
    assert run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path).returncode == 3
    agents_file(tmp_path)
    again = run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path)
    assert again.returncode == 0 and warnings(again.stderr) == [], again.stderr


def test_an_evaluation_stored_without_a_definition_resumes_unchecked(tmp_path: Path) -> None:
    """What an older passk-tui stored has no definition (null): nothing to hold a resume to."""
    agents_file(tmp_path)
    assert run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path).returncode == 0
    with sqlite3.connect(Path(os.environ["PASSK_DATA_DIR"]) / DB_NAME) as db:
        db.execute("UPDATE evaluations SET agent_definition = NULL")  # as migration 6 leaves it
    agents_file(tmp_path, "--changed")
    out = tmp_path / "o.json"
    result = run("--resume", "last", "--attempts", "2", "--export", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(stored().records) == 2
    assert json.loads(out.read_text())["evaluation"]["agent_definition"] is None


# -- an openai agent over HTTP -------------------------------------------------------------


async def test_an_openai_definition_is_stored_and_exported_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_OPENAI_KEY", "sk-fake-openai-key-1234")
    server = FakeOpenAI(answer="hi")
    base_url = await server.start()
    try:
        agents = tmp_path / "agents.toml"
        agents.write_text(
            "[agents.llm.versions.1]\n"
            f'openai = {{ base_url = "{base_url}", model = "tiny", system = "Echo.", '
            'api_key_env = "FAKE_OPENAI_KEY", params = { temperature = 0, seed = 7 } }\n'
        )
        (tmp_path / "cases.toml").write_text(CASES)
        settings = Settings("llm", 1, str(tmp_path / "cases.toml"), attempts=2, k=1,
                            agents_path=str(agents))  # fmt: skip
        evaluation = new_evaluation(settings, None)
        try:
            assert await evaluation.run() == "done"
        finally:
            await evaluation.target.aclose()
    finally:
        await server.stop()
    assert server.requests == 2
    kept = evaluation.store.load(evaluation.evaluation_id)
    assert kept.definition == {
        "kind": "openai",
        "base_url": base_url,
        "model": "tiny",
        "system": "Echo.",
        "api_key_env": "FAKE_OPENAI_KEY",
        "params": {"temperature": 0, "seed": 7},
        "timeout": None,
    }
    text = export(kept, tmp_path / "out.json").read_text()
    assert json.loads(text)["evaluation"]["agent_definition"] == kept.definition
    html = export(kept, tmp_path / "out.html").read_text()
    line = f"openai tiny @ {base_url} · temperature=0 · seed=7 · system &quot;Echo.&quot;"
    assert line in html
    for exported in (text, html):
        assert "sk-fake-openai-key-1234" not in exported


# -- the stack ------------------------------------------------------------------------------


def test_a_stack_definition_is_stored_and_a_moved_stack_still_resumes(
    make_stack: Callable[..., StackServer], tmp_path: Path
) -> None:
    stack = make_stack(keys={KEY: None})
    (tmp_path / "cases.toml").write_text(CASES)
    out = tmp_path / "out.json"
    on = ["--agent", "demo", "--version", "2", "--cases", str(tmp_path / "cases.toml")]
    result = run(
        "--stack",
        stack.url,
        *on,
        "--attempts",
        "1",
        "--export",
        str(out),
        data=tmp_path / "data",
        key=KEY,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    definition = {"kind": "stack", "stack": stack.url.rstrip("/"), "agent": "demo", "version": 2}
    assert json.loads(out.read_text())["evaluation"]["agent_definition"] == definition
    assert KEY not in out.read_text()

    moved = stack.url.replace("127.0.0.1", "localhost")
    resumed = run(
        "--resume",
        "last",
        "--attempts",
        "2",
        "--stack",
        moved,
        data=tmp_path / "data",
        key=KEY,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    with Store.open(tmp_path / "data" / "passk.db") as store:
        kept = store.load(store.resolve("last"))
    assert len(kept.records) == 2 and kept.definition == definition


# -- compare -------------------------------------------------------------------------------


def test_compare_shows_what_each_side_ran(tmp_path: Path) -> None:
    agents_file(tmp_path)
    with (tmp_path / "agents.toml").open("a") as out:
        out.write(f'[agents.a.versions.2]\ncommand = ["{sys.executable}", "agent.py", "-v"]\n')
    for version in (1, 2):
        result = run(*flags(tmp_path, "--attempts", "1", version=version), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    exports = [tmp_path / f"cmp{suffix}" for suffix in (".json", ".html", ".md")]
    for path in exports:
        result = run_compare(tmp_path, "last~1", "last", "--export", str(path))
        assert result.returncode == 0, result.stderr
    a_line = f"A: a v1: {shlex.join([sys.executable, 'agent.py'])}"
    b_line = f"B: a v2: {shlex.join([sys.executable, 'agent.py', '-v'])}"
    assert result.stdout.splitlines()[-2:] == [a_line, b_line]
    document = json.loads(exports[0].read_text())
    assert document["a"]["agent_definition"]["command"] == [sys.executable, "agent.py"]
    assert document["b"]["agent_definition"]["command"] == [sys.executable, "agent.py", "-v"]
    html = exports[1].read_text()
    assert shlex.join([sys.executable, "agent.py", "-v"]) in html
    assert "-v" in exports[2].read_text()


def test_compare_of_one_label_that_ran_two_things_warns(tmp_path: Path) -> None:
    agents_file(tmp_path)
    assert run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path).returncode == 0
    agents_file(tmp_path, "--new")
    assert run(*flags(tmp_path, "--attempts", "1"), cwd=tmp_path).returncode == 0
    result = run_compare(tmp_path, "last~1", "last")
    assert result.returncode == 0, result.stderr
    assert "a v1 is not what it was in evaluation" in result.stderr
    assert '"agent.py", "--new"]' in result.stderr


def run_compare(folder: Path, *args: str):
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PASSK_STACK" and k != "PASSK_KEY"}
    return subprocess.run(
        [sys.executable, "-m", "passk_tui", "compare", *args],
        capture_output=True, text=True, timeout=60, env=env, cwd=folder,
    )  # fmt: skip


def test_describe_an_unknown_definition() -> None:
    assert describe(None) == "definition not recorded"


# -- the app ----------------------------------------------------------------------------------


async def test_the_results_header_and_compare_screen_say_what_ran(app_env: Path) -> None:
    """Results carries one line naming what the version ran; Compare one line per side."""
    from textual.widgets import Static

    from passk_tui.store.comparison import load_compared
    from passk_tui.tui.app.app import PasskApp
    from passk_tui.tui.screens.compare.screen import CompareScreen
    from passk_tui.tui.screens.results.screen import ResultsScreen
    from tests.support.app import run_to_end, scripted

    app = PasskApp(show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(2):
            app.controller.start_evaluation(scripted(attempts=1, k=1), None)
            await run_to_end(pilot)
        assert isinstance(app.screen, ResultsScreen)
        line = str(app.screen.query_one("#results-agent", Static).render())
        assert line.strip() == "scripted v1: python3 scripted.py"
        with Store.open() as store:
            compared = load_compared(store, "last~1", "last")
        await app.push_screen(CompareScreen(compared))
        await pilot.pause()
        lines = str(app.screen.query_one("#compare-agents", Static).render()).splitlines()
        assert [text.strip() for text in lines] == [
            "A: python3 scripted.py",
            "B: python3 scripted.py",
        ]


async def test_the_app_warns_when_a_label_now_runs_something_else(
    app_env: Path, tmp_path: Path
) -> None:
    from passk_tui.tui.app.app import PasskApp
    from tests.support.app import run_to_end

    flags(tmp_path)
    settings = Settings("a", 1, str(tmp_path / "cases.toml"), attempts=1, k=1,
                        agents_path=str(agents_file(tmp_path)))  # fmt: skip
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.controller.start_evaluation(settings, None)
        await run_to_end(pilot)
        first = stored().id
        agents_file(tmp_path, "--edited")
        app.controller.start_evaluation(settings, None)
        await run_to_end(pilot)
        agents_file(tmp_path, "--edited-again")
        app.controller.resume(first, {"attempts": 2})  # it would run what is now in the file
        await pilot.pause()
        said = [n.message for n in app._notifications]
    assert stored(first).settings.attempts == 1
    refused = [m for m in said if "would change what is measured" in m]
    assert len(refused) == 1 and '"--edited-again"]' in refused[0]
    assert [m for m in said if "is not what it was" in m] == [
        f"a v1 is not what it was in evaluation {first}: command changed from "
        f'["{sys.executable}", "agent.py"] to ["{sys.executable}", "agent.py", "--edited"]'
    ]


def test_a_schema_5_store_reads_its_evaluations_as_of_unknown_definition(tmp_path: Path) -> None:
    from tests.support.old_stores import insert_old_evaluation, store_at_schema

    path = tmp_path / "old.db"
    with store_at_schema(path, 5) as db:
        insert_old_evaluation(db)
    with Store.open(path) as store:
        old = store.load("ev_old")
        assert old.definition is None
        assert store.last_definition("demo", 1, on_stack=False) is None
    document = json.loads(export(old, tmp_path / "old.json").read_text())
    assert document["evaluation"]["agent_definition"] is None
