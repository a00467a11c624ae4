"""Shared fixtures: a private data/config folder for every test, the test stack, the fake
OpenAI endpoint, the app's environment, and the resume tests' cases file."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import APP_AGENTS
from tests.support.fake_openai import FakeOpenAI
from tests.support.resume import CASES
from tests.support.stack_server import StackServer


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point XDG_CONFIG_HOME, XDG_DATA_HOME and PASSK_DATA_DIR at a temp dir: never the user's."""
    root = tmp_path_factory.mktemp("home")
    for name, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("PASSK_DATA_DIR", "passk"),
    ):
        path = root / sub
        path.mkdir()
        monkeypatch.setenv(name, str(path))
    return root


@pytest.fixture
def make_stack() -> Iterator[Callable[..., StackServer]]:
    """Start StackServers with a StackConfig's fields as keywords; all stop after the test."""
    started: list[StackServer] = []

    def make(**config: Any) -> StackServer:
        server = StackServer(**config).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def stack(make_stack: Callable[..., StackServer]) -> StackServer:
    """A stack with the default config: key "secret-key" (and "forbidden": 403), agent "demo"
    (versions 1-3), Turns echoing their input after 50 ms, no faults. Change
    ``stack.config`` to script it."""
    return make_stack()


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """User folders in tmp, the scripted agent's call counters in tmp, cwd at the test agents."""
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSK_DATA_DIR", "PASSK_TEST_STATE"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(name, str(folder))
    for name in ("PASSK_STACK", "PASSK_KEY"):
        monkeypatch.delenv(name, raising=False)
    # Relative paths keep the screens (and so the snapshots) free of this machine's folders.
    monkeypatch.chdir(APP_AGENTS)
    return tmp_path


@pytest.fixture
async def endpoint() -> AsyncIterator[FakeOpenAI]:
    """A fake Chat Completions server on 127.0.0.1 answering "42"; stopped after the test."""
    fake = FakeOpenAI(answer="42")
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    """The resume tests' three-case suite (tests.support.resume.CASES) in tmp."""
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    return path
