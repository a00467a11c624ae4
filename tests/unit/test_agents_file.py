"""The local agents file: finding it, validating it, and the targets it makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from passk_tui.core.errors import InputError
from passk_tui.targets.agents_file import (
    AgentVersion,
    OpenAISpec,
    find_agents_file,
    load_agents,
    local_target,
)
from passk_tui.targets.command import CommandTarget
from passk_tui.targets.openai import OpenAITarget

GOOD = """\
[agents.calc.versions.1]
command = ["python3", "agents/calc.py"]       # input on stdin
[agents.calc.versions.2]
openai = { base_url = "http://127.0.0.1:11434/v1", model = "qwen2.5:0.5b",
           system = "Answer with the number only.", api_key_env = "OPENAI_API_KEY" }

[agents.echo.versions.10]
command = ["cat"]
[agents.echo.versions.3]
openai = { base_url = "https://api.example.com/v1", model = "m" }
"""


def write(folder: Path, text: str, name: str = "agents.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """XDG_CONFIG_HOME in a temp dir, so the user's own agents file is never found."""
    home = tmp_path / "config"
    home.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def test_good_file_loads_every_version(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    agents = load_agents(path)
    assert list(agents) == ["calc", "echo"]
    assert list(agents["echo"]) == [3, 10]  # numeric order, not file or text order
    assert agents["calc"][1] == AgentVersion(
        "calc", 1, tmp_path.resolve(), command=("python3", "agents/calc.py")
    )
    assert agents["calc"][2].openai == OpenAISpec(
        base_url="http://127.0.0.1:11434/v1",
        model="qwen2.5:0.5b",
        system="Answer with the number only.",
        api_key_env="OPENAI_API_KEY",
    )
    assert agents["echo"][3].openai == OpenAISpec("https://api.example.com/v1", "m")
    assert agents["echo"][3].command is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[agents.calc.versions.1\ncommand = ['x']\n", "agents.toml: line 1: invalid TOML: "),
        (
            "[agents.calc.versions.1]\ncommand = ['x']\nbroken =\n",
            "agents.toml: line 3: invalid TOML: ",
        ),
        (
            "[agents.calc.versions.one]\ncommand = ['x']\n",
            "agents.toml: agent 'calc': version 'one' is not an integer",
        ),
        (
            "[agents.calc.versions.-1]\ncommand = ['x']\n",
            "agents.toml: agent 'calc': version '-1' is not an integer",
        ),
        (
            "[agents.calc.versions.2]\n",
            "agents.toml: agent 'calc' version 2: has neither of 'command' and 'openai'"
            " (give exactly one)",
        ),
        (
            "[agents.calc.versions.2]\ncommand = ['x']\n"
            "openai = { base_url = 'http://h/v1', model = 'm' }\n",
            "agents.toml: agent 'calc' version 2: has both of 'command' and 'openai'"
            " (give exactly one)",
        ),
        (
            "[agents.calc.versions.1]\ncommand = []\n",
            "agents.toml: agent 'calc' version 1: 'command' must be a non-empty list of strings",
        ),
        (
            "[agents.calc.versions.1]\ncommand = 'python3 calc.py'\n",
            "agents.toml: agent 'calc' version 1: 'command' must be a non-empty list of strings",
        ),
        (
            "[agents.calc.versions.1]\ncommand = ['python3', 3]\n",
            "agents.toml: agent 'calc' version 1: 'command' must be a non-empty list of strings",
        ),
        (
            "[agents.calc.versions.2]\nopenai = { model = 'm' }\n",
            "agents.toml: agent 'calc' version 2: openai is missing 'base_url'",
        ),
        (
            "[agents.calc.versions.2]\nopenai = { base_url = 'http://h/v1' }\n",
            "agents.toml: agent 'calc' version 2: openai is missing 'model'",
        ),
        (
            "[agents.calc.versions.2]\nopenai = { base_url = 'http://h/v1', model = 'm', "
            "temperature = 0.2 }\n",
            "agents.toml: agent 'calc' version 2: openai: unknown key 'temperature'"
            " (expected: base_url, model, system, api_key_env, params, timeout)",
        ),
        (
            "[agents.calc.versions.2]\nopenai = { base_url = 'http://h/v1', model = 'm', "
            "params = { model = 'other' } }\n",
            "agents.toml: agent 'calc' version 2: openai 'params' may not set 'model'"
            " (it is set for you)",
        ),
        (
            "[agents.calc.versions.2]\nopenai = { base_url = 'http://h/v1', model = 'm', "
            "params = 0.2 }\n",
            "agents.toml: agent 'calc' version 2: openai 'params' must be a table",
        ),
        (
            "[agents.calc.versions.2]\nopenai = { base_url = 'http://h/v1', model = 'm', "
            "params = { when = 1979-05-27 } }\n",
            "agents.toml: agent 'calc' version 2: openai 'params' must hold JSON values",
        ),
        (
            "[agents.calc.versions.2]\nopenai = { base_url = 'http://h/v1', model = 'm', "
            "timeout = -1 }\n",
            "agents.toml: agent 'calc' version 2: openai 'timeout' must be a positive number"
            " of seconds, got -1",
        ),
        (
            "[agents.calc.versions.1]\ncommand = ['x']\ncwd = 'elsewhere'\n",
            "agents.toml: agent 'calc' version 1: unknown key 'cwd' (expected: command, openai, price, sandbox, cpus, tools, max_steps)",
        ),
        (
            "[agents.calc]\ndescription = 'hi'\n[agents.calc.versions.1]\ncommand = ['x']\n",
            "agents.toml: agent 'calc': unknown key 'description' (expected: versions)",
        ),
        (
            "[agent.calc.versions.1]\ncommand = ['x']\n",
            "agents.toml: unknown key 'agent' (expected: agents)",
        ),
        ("", "agents.toml: no agents (expected [agents.NAME.versions.N] tables)"),
        (
            "[agents.calc]\n",
            "agents.toml: agent 'calc': no versions (expected [agents.calc.versions.N])",
        ),
    ],
)
def test_bad_file_is_input_error_naming_file_and_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    write(tmp_path, text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as caught:
        load_agents(Path("agents.toml"))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    assert caught.value.exit_code == 2


def test_openai_params_and_timeout_are_kept_as_given(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "[agents.llm.versions.1]\n"
        "openai = { base_url = 'http://h/v1', model = 'm', timeout = 20,\n"
        '  params = { temperature = 0, max_tokens = 256, seed = 7, stop = ["\\n"],\n'
        "             response_format = { type = 'json_object' } } }\n",
    )
    spec = load_agents(path)["llm"][1].openai
    assert spec is not None
    assert spec.timeout == 20
    assert spec.params == {
        "temperature": 0,
        "max_tokens": 256,
        "seed": 7,
        "stop": ["\n"],
        "response_format": {"type": "json_object"},
    }


def test_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.toml: cannot read: No such file or directory"):
        load_agents(tmp_path / "nope.toml")


def test_find_prefers_explicit_then_working_folder_then_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config_home: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (config_home / "passk-tui").mkdir()
    configured = write(config_home / "passk-tui", GOOD)
    assert find_agents_file(None) == configured

    local = write(work, GOOD)
    assert find_agents_file(None) == Path("agents.toml")
    assert find_agents_file(None).resolve() == local.resolve()

    explicit = write(tmp_path, GOOD, name="mine.toml")
    assert find_agents_file(explicit) == explicit


def test_find_with_an_explicit_file_that_does_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config_home: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, GOOD)  # present, but not what was asked for
    with pytest.raises(InputError, match=r"missing\.toml: no such agents file"):
        find_agents_file(tmp_path / "missing.toml")


def test_find_nothing_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config_home: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as caught:
        find_agents_file(None)
    expected = (
        "no agents file: pass --agents PATH or create agents.toml "
        f"(looked in ./agents.toml and {config_home / 'passk-tui' / 'agents.toml'})"
    )
    assert str(caught.value) == expected


def test_local_target_makes_the_right_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123456")
    path = write(tmp_path, GOOD)
    command = local_target(path, "calc", 1, concurrency=2)
    assert isinstance(command, CommandTarget)
    assert command.argv == ("python3", "agents/calc.py")
    assert command.cwd == tmp_path.resolve()
    model = local_target(path, "calc", 2, concurrency=2)
    assert isinstance(model, OpenAITarget)
    assert model.url == "http://127.0.0.1:11434/v1/chat/completions"
    assert "sk-test" not in repr(model)


def test_local_target_unknown_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, GOOD)
    with pytest.raises(InputError) as caught:
        local_target(Path("agents.toml"), "x", 1, concurrency=1)
    assert str(caught.value) == "agents.toml: no agent 'x' (agents: calc, echo)"
    assert caught.value.exit_code == 2


def test_local_target_unknown_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, GOOD)
    with pytest.raises(InputError) as caught:
        local_target(Path("agents.toml"), "calc", 7, concurrency=1)
    assert str(caught.value) == "agents.toml: agent 'calc' has no version 7 (versions: 1, 2)"


def test_local_target_key_env_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    write(tmp_path, GOOD)
    with pytest.raises(InputError) as caught:
        local_target(Path("agents.toml"), "calc", 2, concurrency=1)
    assert str(caught.value) == (
        "agents.toml: agent 'calc' version 2: environment variable OPENAI_API_KEY is not set"
    )
