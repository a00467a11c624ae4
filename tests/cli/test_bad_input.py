"""Bad input from a hostile or careless user: one line, the documented exit code, no traceback.

Each input runs the real CLI in a subprocess (memory-capped, so a file that never
ends fails fast instead of filling the machine) and leaves nothing "interrupted"
or "running" in history.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import CLI_AGENTS
from tests.support.cli import environment, run

AGENTS = CLI_AGENTS
#: Nothing listens here: an attempt to reach it would be a connection error (exit 3).
DEAD_STACK = "http://127.0.0.1:1"
#: The progress line the CLI prints on a non-terminal stderr; not a message.
_PROGRESS = re.compile(r"^\d+/\d+ attempts ")
_MEMORY_CAP = 2 << 30


@dataclass(frozen=True)
class BadInput:
    """How to make one bad input in a folder: the flags (and environment) and the exit code."""

    flags: Callable[[Path], list[str]]
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)
    stdout: str | None = None
    """A file to point stdout at (/dev/full)."""
    says: str | None = None
    """Text the message must hold (the file and field it names)."""


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def local(cases: Callable[[Path], str], agent: str = "scripted") -> Callable[[Path], list[str]]:
    """Flags for a local agent (the scripted one) on the cases file ``cases`` makes."""

    def flags(folder: Path) -> list[str]:
        agents = str(folder / "agents" / "agents.toml")
        case_file = cases(folder)
        return ["--agents", agents, "--agent", agent, "--version", "1", "--cases", case_file]

    return flags


def agents_file(text: str) -> Callable[[Path], list[str]]:
    """Flags for agent ``a`` of an agents file holding ``text``, on the seed cases."""

    def flags(folder: Path) -> list[str]:
        agents = write(folder, "agents.toml", text)
        return ["--agents", agents, "--agent", "a", "--version", "1", "--cases", seed(folder)]

    return flags


def on_stack(
    *more: str, stack: str | None = DEAD_STACK, version: str = "1"
) -> Callable[[Path], list[str]]:
    """Flags for agent demo on a stack (by default one that is not there) with the seed cases."""

    def flags(folder: Path) -> list[str]:
        address = ["--stack", stack] if stack is not None else []
        return [*address, "--agent", "demo", "--version", version, "--cases", seed(folder), *more]

    return flags


def seed(folder: Path) -> str:
    return str(folder / "agents" / "seed.toml")


def fifo(folder: Path) -> str:
    path = folder / "cases.jsonl"
    os.mkfifo(path)
    return str(path)


def endless(folder: Path) -> str:
    path = folder / "cases.jsonl"
    path.symlink_to("/dev/zero")
    return str(path)


def case_line(**row: object) -> str:
    return json.dumps({"name": "a", "input": "x", "check": {"equals": "x"}, **row}) + "\n"


BAD_INPUTS = {
    "jsonl-100000-deep": BadInput(
        local(lambda f: write(f, "c.jsonl", "[" * 100_000 + "]" * 100_000 + "\n"))
    ),
    "toml-500-deep": BadInput(
        local(
            lambda f: write(f, "c.toml", f'[[cases]]\nname = "a"\ninput = {"[" * 500}{"]" * 500}\n')
        )
    ),
    "lone-surrogate-in-cases": BadInput(
        local(lambda f: write(f, "c.jsonl", case_line(input="I love \ud83d")))
    ),
    "401-digit-number": BadInput(
        local(lambda f: write(f, "c.jsonl", case_line(check={"number": int("9" * 401)})))
    ),
    "control-character-in-a-name": BadInput(
        local(lambda f: write(f, "c.jsonl", case_line(name="red\x1b[31m")))
    ),
    "huge-version": BadInput(on_stack(version="9" * 23)),
    "unclosed-ipv6-stack": BadInput(on_stack(stack="http://[::1")),
    "credentials-in-stack": BadInput(on_stack(stack="http://user:pw@127.0.0.1:1")),
    "credentials-in-PASSK_STACK": BadInput(
        on_stack(stack=None), env={"PASSK_STACK": "https://user:pw@127.0.0.1:1"}
    ),
    "port-99999": BadInput(on_stack(stack="http://127.0.0.1:99999")),
    "leading-space-in-stack": BadInput(on_stack(stack=" http://127.0.0.1:1")),
    "100k-character-agent": BadInput(local(seed, agent="a" * 100_000)),
    "key-with-a-newline": BadInput(on_stack(), env={"PASSK_KEY": "sk-abc\ndef-123456"}),
    "key-not-ascii": BadInput(on_stack("--key", "sk-abcé-123456")),
    "unknown-flag-with-a-newline-and-esc": BadInput(lambda f: ["--agnet\x1b[2J\nx"]),
    "fifo-as-cases": BadInput(local(fifo)),
    "dev-zero-as-cases": BadInput(local(endless)),
    "stdout-on-dev-full": BadInput(local(seed), code=3, stdout="/dev/full"),
    "resume-last~20-digits": BadInput(
        lambda f: ["--resume", "last~" + "9" * 20], says="no evaluation in the store"
    ),
    "resume-last~5000-digits": BadInput(
        lambda f: ["--resume", "last~" + "9" * 5000], says="no evaluation in the store"
    ),
    "nul-in-a-check-command": BadInput(
        local(lambda f: write(f, "c.jsonl", case_line(check={"command": ["python3", "a\x00b"]}))),
        says="c.jsonl: line 1: case 'a': check: command argument 2 holds a NUL",
    ),
    "nul-in-an-agent-command": BadInput(
        agents_file('[agents.a.versions.1]\ncommand = ["python3", "a\\u0000b"]\n'),
        says="agents.toml: agent 'a' version 1: 'command' argument 2 holds a NUL",
    ),
    "unclosed-ipv6-base-url": BadInput(
        agents_file('[agents.a.versions.1]\nopenai = { base_url = "http://[::1", model = "m" }\n'),
        says="agents.toml: agent 'a' version 1: openai 'base_url': 'http://[::1' is not a valid",
    ),
    "empty-label-base-url": BadInput(
        agents_file(
            '[agents.a.versions.1]\nopenai = { base_url = "http://a..b/v1", model = "m" }\n'
        ),
        says="openai 'base_url': 'http://a..b/v1': the host 'a..b' is not a valid host name",
    ),
    "toml-5000-digit-integer-in-cases": BadInput(
        local(lambda f: write(f, "c.toml", f'[[cases]]\nname = "a"\ninput = {"9" * 5000}\n')),
        says="c.toml: invalid TOML: an integer of more than 4,300 digits",
    ),
    "toml-5000-digit-version-in-agents": BadInput(
        agents_file(f'[agents.a.versions.{"9" * 5000}]\ncommand = ["cat"]\n'),
        says="agents.toml: agent 'a': version 9999",
    ),
    "attempts=--": BadInput(on_stack("--attempts=--"), says="--attempts: expected one argument"),
    "idna-refused-stack": BadInput(
        on_stack(stack="http://☃.com"), says="the host '☃.com' is not a valid host name"
    ),
    "require-1e-100000000": BadInput(
        on_stack("--require", "1e-100000000"), says="--require: must be a number"
    ),
    "require-1e100000000": BadInput(
        on_stack("--require", "1e100000000"), says="an exponent of at most 100"
    ),
    "require-5000-digits": BadInput(
        on_stack("--require", "0." + "0" * 5000 + "1"), says="of at most 100 characters"
    ),
    "concurrency-2**63-1": BadInput(
        on_stack("--concurrency", str(2**63 - 1)), says="--concurrency: must be between 1 and"
    ),
    "attempts-5000-digits": BadInput(
        on_stack("--attempts", "9" * 5000), says="--attempts: must be at most"
    ),
}


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_CAP, _MEMORY_CAP))


def passk(folder: Path, args: list[str], env: dict[str, str], stdout: str | None):
    """The headless CLI in ``folder`` (its store in folder/data), memory-capped, with ``env``
    added; stdout to the file ``stdout`` when given (a file that is never read back)."""
    with open(stdout or os.devnull, "w") as out:
        return run(
            *args,
            cwd=folder,
            env=environment(folder / "data", **env),
            stdout=out if stdout else subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_cap_memory,
        )


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_input_is_one_line_and_its_exit_code(name: str, tmp_path: Path) -> None:
    bad = BAD_INPUTS[name]
    shutil.copytree(AGENTS, tmp_path / "agents")
    result = passk(tmp_path, bad.flags(tmp_path), bad.env, bad.stdout)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if not _PROGRESS.match(line)]
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith("passk-tui: ") and len(lines[0]) < 400, lines[0][:400]
    assert "\x1b" not in result.stderr
    assert result.returncode == bad.code, lines
    assert bad.says is None or bad.says in lines[0], lines[0]
    history = _history(tmp_path)
    assert "interrupted" not in history and "running" not in history, history


def _history(folder: Path) -> str:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    environment["PASSK_DATA_DIR"] = str(folder / "data")
    result = subprocess.run(
        [sys.executable, "-m", "passk_tui", "history"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout
