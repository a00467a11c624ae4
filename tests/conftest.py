"""Shared fixtures: a private data/config folder for every test, and the test stack."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

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
