"""A cases folder shipped to Ray nodes for its `command` checks: packed once, unpacked
once per node, whole; one too large to ship is refused, not cut."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from passk_tui.targets.ray import shipped


def test_the_folder_arrives_whole_and_once(tmp_path: Path) -> None:
    folder = tmp_path / "cases"
    (folder / "checks").mkdir(parents=True)
    (folder / "cases.toml").write_text("[[cases]]\n")
    (folder / "checks" / "run.py").write_text("print('ok')\n")
    data, digest = shipped.packed(folder)
    assert shipped.packed(folder) == (data, digest)  # the same content, the same name
    landed = shipped.unpacked(data, digest)
    try:
        assert (landed / "checks" / "run.py").read_text() == "print('ok')\n"
        assert (landed / "cases.toml").read_text() == "[[cases]]\n"
        (landed / "marker").touch()
        assert shipped.unpacked(data, digest) == landed  # not unpacked again
        assert (landed / "marker").exists()
    finally:
        shutil.rmtree(landed)


def test_a_folder_too_large_to_ship_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shipped, "MOST_BYTES", 10)
    (tmp_path / "big.txt").write_text("x" * 11)
    with pytest.raises(shipped.TooLarge, match="holds over"):
        shipped.packed(tmp_path)
