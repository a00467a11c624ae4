"""A file's sha256, hashed on a thread while the caller goes on: the same digest as hashlib's,
and a file that cannot be read named when the digests are asked for. An import that nobody
started hashing (a Python caller's) hashes its files as it goes, on no thread."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.file_digests import FileDigests, sha256_of
from passk_tui.evaluations.imported import READERS, ImportView, import_files
from passk_tui.store import Store

TAU = Path(__file__).parents[1] / "fixtures" / "imports" / "tau-bench-results.json"


def test_each_files_digest_in_order(tmp_path: Path) -> None:
    files = []
    for size in (0, 5, 3 << 20):  # none, a few bytes, several reads' worth
        path = tmp_path / f"f{size}"
        path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
        files.append(path)
    expected = [hashlib.sha256(path.read_bytes()).hexdigest() for path in files]
    assert FileDigests(files).digests() == expected
    assert [sha256_of(str(path)) for path in files] == expected


def test_a_file_that_cannot_be_read_is_named_when_asked(tmp_path: Path) -> None:
    hashing = FileDigests([tmp_path])  # a folder: nothing raised until the digests are asked
    with pytest.raises(InputError, match=f"^{tmp_path}: cannot read: "):
        hashing.digests()


def test_the_import_command_names_every_format_it_reads() -> None:
    """The command's formats are its own list (its parser loads no reader): the same names."""
    from passk_tui.cli.import_logs import FORMATS_HELP

    assert list(FORMATS_HELP) == list(READERS)


def threads_started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads started from now on in this test, in order."""
    started: list[str] = []
    start = threading.Thread.start

    def noted(thread: threading.Thread) -> None:
        started.append(thread.name)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", noted)
    return started


def test_the_import_command_hashes_on_a_thread_while_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line starts hashing as it reads its flags, to overlap loading modules."""
    from passk_tui.cli.import_logs import run_import

    monkeypatch.setenv("PASSK_DATA_DIR", str(tmp_path))
    started = threads_started(monkeypatch)
    assert run_import(["tau-bench", str(TAU)]) == 0
    assert started[:1] == ["passk-sha256"], started


def test_an_import_nobody_started_hashing_hashes_on_no_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``import_files`` called with no hashing started has nothing to overlap."""
    started = threads_started(monkeypatch)
    with Store.open(tmp_path / "passk.db") as store:
        imported = import_files("tau-bench", [TAU], {}, ImportView(), store)
    assert "passk-sha256" not in started, started
    definition = imported.stored.definition or {}
    assert definition["files"] == [
        {"path": str(TAU.resolve()), "sha256": hashlib.sha256(TAU.read_bytes()).hexdigest()}
    ]
