"""A file's sha256, hashed on a thread while the caller goes on: the same digest as hashlib's,
and a file that cannot be read named when the digests are asked for."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.file_digests import FileDigests, sha256_of
from passk_tui.evaluations.imported import READERS


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
