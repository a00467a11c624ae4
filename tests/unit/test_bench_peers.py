"""bench/peers.py finds the shared peer harness from the main checkout and from a worktree."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

BENCH = ROOT / "bench"


@pytest.fixture
def peers(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.setenv("PORT", "1")  # no port probe at import
    yield importlib.import_module("peers")
    sys.modules.pop("peers", None)


def test_a_worktree_one_level_deeper_finds_shared(peers, tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "bench-peers"
    shared.mkdir(parents=True)
    worktree = tmp_path / "wt" / "b1-bench"
    worktree.mkdir(parents=True)
    assert peers.peers_folder(worktree, {}) == shared


def test_the_main_checkout_finds_its_sibling(peers, tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "bench-peers"
    shared.mkdir(parents=True)
    assert peers.peers_folder(tmp_path / "main", {}) == shared


def test_bench_peers_in_the_environment_wins(peers, tmp_path: Path) -> None:
    (tmp_path / "shared" / "bench-peers").mkdir(parents=True)
    chosen = tmp_path / "elsewhere"
    assert peers.peers_folder(tmp_path / "main", {"BENCH_PEERS": str(chosen)}) == chosen
