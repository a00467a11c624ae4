"""The Ray tests start a real cluster (minutes on a loaded machine): run only when asked,
with ``PASSK_TEST_RAY=1 python -m pytest -m ray tests/ray`` (as .ci/run does)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ray.cluster import Cluster, start_cluster


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get("PASSK_TEST_RAY") == "1":
        return
    skip = pytest.mark.skip(reason="a real Ray cluster: set PASSK_TEST_RAY=1 to run")
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A head and one worker node, 1 CPU each, for the module's tests."""
    pytest.importorskip("ray")
    started = start_cluster(tmp_path_factory.mktemp("ray-home"))
    try:
        started.add_worker()
        yield started
    finally:
        started.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An agents folder of its own (Ray ships it to every node), apart from the store."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder
