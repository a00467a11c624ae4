"""`passk-tui init`: starter files that run as written, and never a file overwritten."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from passk_tui.cli.main import main
from passk_tui.targets.agents_file import load_agents
from tests.support.cli import run


def test_init_writes_starter_files_that_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert capsys.readouterr().err == (
        "passk-tui: wrote cases.toml and agents.toml; "
        "now run: passk-tui --agent echo --version 1 --cases cases.toml\n"
    )
    result = run("--agent", "echo", "--version", "1", "--cases", "cases.toml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[2:]]
    assert [(row[0], row[1], row[-1]) for row in rows] == [
        ("greeting", "5/5", "yes"),
        ("mentions-refund", "5/5", "yes"),
        ("structured", "5/5", "yes"),
    ]


@pytest.mark.parametrize("existing", ["cases.toml", "agents.toml"])
def test_init_overwrites_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    existing: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / existing).write_text("# mine\n")
    assert main(["init"]) == 2
    assert capsys.readouterr().err == (
        f"passk-tui: {existing}: already exists; init overwrites nothing\n"
    )
    assert (tmp_path / existing).read_text() == "# mine\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == [existing]


def test_the_commented_openai_agent_loads_once_uncommented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    text = (tmp_path / "agents.toml").read_text()
    block = text[text.index("# [agents.model.versions.1]") :]
    (tmp_path / "agents.toml").write_text(text + re.sub(r"(?m)^# ", "", block))
    model = load_agents(tmp_path / "agents.toml")["model"][1].openai
    assert model is not None
    assert model.params == {"temperature": 0.7, "max_tokens": 256}
    assert (model.timeout, model.api_key_env) == (120, "OPENAI_API_KEY")
