"""Secrets stay where they belong: real runs of the CLI, real programs and real HTTP.

The stack key never reaches a local program's environment; an `openai` endpoint
that echoes the key leaves it in no answer, error, store or export; keys too
short to mask are refused; a password in an `openai` base_url is refused
without being said, and nothing is stored.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.widgets import Button

from passk_tui.store import DB_NAME
from passk_tui.tui.app.app import PasskApp
from tests.support.app import fill, message, wait_for
from tests.support.cli import environment, run_async
from tests.support.fake_openai import FakeOpenAI
from tests.support.openai import exported, openai_agents
from tests.support.stack_server import StackServer

STACK_KEY = "sk-PASSK-stack-key-7c41e09b"
OPENAI_KEY = "sk-openai-echoed-3f9a27d1c6"

#: A program that says which of the variables it was given hold a secret or prove it was
#: given the environment at all: JSON on stdout (an agent) or stderr, exiting 1 (a check).
SEEN = (
    "import json, os, sys; seen = sorted(k for k in os.environ if k in "
    "('PASSK_KEY', 'OPENAI_API_KEY', 'PASSK_DATA_DIR'));"
)
AGENT_SAYS_ITS_ENV = SEEN + " print(json.dumps(seen))"
CHECK_SAYS_ITS_ENV = SEEN + " sys.exit(json.dumps(seen))"


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def command_check_case(folder: Path, name: str = "cases.toml") -> Path:
    """One case judged by a `command` check that fails, saying what it was given."""
    path = folder / name
    check = json.dumps([sys.executable, "-c", CHECK_SAYS_ITS_ENV])
    path.write_text(f'[[cases]]\nname = "env"\ninput = "hi"\ncheck = {{ command = {check} }}\n')
    return path


def stored_bytes(data: Path) -> list[tuple[Path, bytes]]:
    """Every file of the store (the database, its journal) with its bytes."""
    files = [(p, p.read_bytes()) for p in data.rglob("*") if p.is_file()]
    assert any(p.name == DB_NAME for p, _ in files)
    return files


# -- the stack key in no child's environment ---------------------------------------------


async def test_a_command_agent_and_its_command_check_never_see_the_stack_key(
    tmp_path: Path,
) -> None:
    agent = json.dumps([sys.executable, "-c", AGENT_SAYS_ITS_ENV])
    (tmp_path / "agents.toml").write_text(f"[agents.a.versions.1]\ncommand = {agent}\n")
    cases = command_check_case(tmp_path)
    env = environment(tmp_path / "data", PASSK_KEY=STACK_KEY, OPENAI_API_KEY="sk-for-the-judge-01")
    args = ["--agent", "a", "--version", "1", "--cases", str(cases), "--attempts", "1"]
    code, _, err = await run_async(*args, "--export", "out.json", env=env, cwd=tmp_path)
    assert code == 0, err
    [attempt] = exported(tmp_path / "out.json")["attempts"]
    # Both programs got the environment (the store's folder, a judge's own key): not the key.
    assert attempt["output"] == '["OPENAI_API_KEY", "PASSK_DATA_DIR"]'
    assert attempt["reason"] == 'command exited 1: ["OPENAI_API_KEY", "PASSK_DATA_DIR"]'


async def test_a_command_check_on_a_stack_run_never_sees_the_key_the_run_uses(
    make_stack, tmp_path: Path
) -> None:
    stack: StackServer = make_stack(keys={STACK_KEY: None})
    cases = command_check_case(tmp_path)
    env = environment(tmp_path / "data", PASSK_KEY=STACK_KEY)
    args = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    code, _, err = await run_async(
        *args, "--attempts", "1", "--export", "out.json", env=env, cwd=tmp_path
    )
    assert code == 0, err
    [attempt] = exported(tmp_path / "out.json")["attempts"]
    assert attempt["status"] == "completed"  # the key reached the stack
    assert attempt["reason"] == 'command exited 1: ["PASSK_DATA_DIR"]'
    assert stack.stats().runs_created == 1


# -- keys too short to mask --------------------------------------------------------------


@pytest.mark.parametrize("given", [("PASSK_KEY", "k"), ("--key", "sk-1234")])
async def test_a_stack_key_too_short_to_mask_is_refused_in_one_line(
    make_stack, tmp_path: Path, given: tuple[str, str]
) -> None:
    source, key = given
    stack: StackServer = make_stack(keys={key: None})
    cases = command_check_case(tmp_path)
    env = environment(tmp_path / "data", **{"PASSK_KEY": key} if source == "PASSK_KEY" else {})
    args = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    args += ["--key", key] if source == "--key" else []
    code, out, err = await run_async(*args, env=env, cwd=tmp_path)
    assert code == 2 and out == ""
    assert one_line(err) == (
        f"passk-tui: {source}: the key is {len(key)} characters; at least 8 are needed, "
        "so that it can be masked wherever a server echoes it"
    )
    assert stack.stats().runs_created == 0
    assert not (tmp_path / "data").exists()


async def test_an_openai_key_too_short_to_mask_is_refused_naming_its_variable(
    tmp_path: Path,
) -> None:
    (tmp_path / "agents.toml").write_text(
        "[agents.llm.versions.1]\n"
        'openai = { base_url = "http://127.0.0.1:9/v1", model = "m", api_key_env = "MY_KEY" }\n'
    )
    cases = command_check_case(tmp_path)
    env = environment(tmp_path / "data", MY_KEY="ollama")
    args = ["--agent", "llm", "--version", "1", "--cases", str(cases)]
    code, out, err = await run_async(*args, env=env, cwd=tmp_path)
    assert code == 2 and out == ""
    assert one_line(err) == (
        "passk-tui: agents.toml: agent 'llm' version 1: environment variable MY_KEY: "
        "the key is 6 characters; at least 8 are needed, so that it can be masked wherever "
        "a server echoes it"
    )
    assert not (tmp_path / "data").exists()


# -- an echoing openai endpoint ------------------------------------------------------------


async def test_an_endpoint_echoing_the_key_leaves_it_in_no_answer_error_store_or_export(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    endpoint.echo_authorization = True
    endpoint.fail(400, times=1, body={"error": {"message": "bad request"}})
    openai_agents(tmp_path, endpoint.base_url, api_key_env="MY_KEY")
    (tmp_path / "cases.toml").write_text(
        '[[cases]]\nname = "echo"\ninput = "What is 6 * 7?"\ncheck = { contains = "42" }\n'
    )
    data = tmp_path / "data"
    args = ["--agent", "llm", "--version", "1", "--cases", "cases.toml", "--attempts", "2"]
    args += ["--concurrency", "1", "--export", "out.json"]
    code, out, err = await run_async(*args, env=environment(data, MY_KEY=OPENAI_KEY), cwd=tmp_path)
    assert code == 0, err
    assert all(s.headers["Authorization"] == f"Bearer {OPENAI_KEY}" for s in endpoint.seen)
    attempts = exported(tmp_path / "out.json")["attempts"]
    said = {(a["outcome"], a["output"] or a["error"]) for a in attempts}
    assert said == {
        ("passed", "42 (you sent Authorization: Bearer ***)"),
        (
            "errored",
            f"HTTP 400 from {endpoint.base_url}/chat/completions: "
            "bad request (you sent Authorization: Bearer ***)",
        ),
    }
    secret = OPENAI_KEY.encode()
    assert secret not in (tmp_path / "out.json").read_bytes()
    assert OPENAI_KEY not in out + err
    for path, content in stored_bytes(data):
        assert secret not in content, path


# -- a password in an openai base_url ----------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "problem"),
    [
        (
            "http://user:pa55word@127.0.0.1:9/v1",
            "put no user or password in the address; give the key with api_key_env "
            "(the name of the environment variable that holds it)",
        ),
        ("http://user:pa55word@[::1/v1", "'http://[::1/v1' is not a valid address"),
        ("http://user:pa55word@h/v 1", "'http://h/v 1' holds spaces or control characters"),
        ("ftp://user:pa55word@h/v1", "'ftp://h/v1' is not an http:// or https:// address"),
    ],
)
async def test_a_password_in_a_base_url_is_refused_unsaid_and_nothing_is_stored(
    tmp_path: Path, base_url: str, problem: str
) -> None:
    openai_agents(tmp_path, base_url)
    cases = command_check_case(tmp_path)
    args = ["--agent", "llm", "--version", "1", "--cases", str(cases)]
    code, out, err = await run_async(*args, env=environment(tmp_path / "data"), cwd=tmp_path)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith(
        f"passk-tui: agents.toml: agent 'llm' version 1: openai 'base_url': {problem}"
    )
    assert "pa55word" not in line
    assert not (tmp_path / "data").exists()


# -- the app's Configure -------------------------------------------------------------------


async def test_configure_refuses_a_short_key_and_a_password_in_the_stack_address_at_the_field(
    app_env: Path, stack: StackServer
) -> None:
    app = PasskApp(show_timing=False)
    async with app.run_test(size=(120, 36)) as pilot:
        run = app.screen.query_one("#run", Button)
        await fill(pilot, stack=stack.url, agent="demo", version="1", cases="cases.toml")
        await wait_for(pilot, lambda: not run.disabled)
        await fill(pilot, key="sk-123")
        assert run.disabled
        assert "the key is 6 characters; at least 8" in str(message(app, "key").render())
        address = stack.url.replace("http://", "http://user:pa55word@")
        await fill(pilot, key="secret-key", stack=address)
        shown = str(message(app, "stack").render())
        assert run.disabled and "put no user or password in the stack address" in shown
        assert "pa55word" not in shown
        await fill(pilot, stack=stack.url)
        await wait_for(pilot, lambda: not run.disabled)
    assert stack.stats().runs_created == 0
