"""The lean central-directory reader gives what zipfile gives, for every layout it meets.

An archive it does not cover (zip64, a method of zipfile's own) is left to zipfile, and a
damaged one is refused as zipfile refuses it: zipfile.BadZipFile, never a traceback of ours.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from passk_tui.imports.zip_members import ZSTD, Archive
from tests.support.zips import zstd_archive

FIXTURES = Path(__file__).parent.parent / "fixtures" / "imports"
CONTENTS = {
    "header.json": b'{"eval": {}}',
    "samples/1_epoch_1.json": b'{"id": 1, "text": "\xc3\xa9t\xc3\xa9"}' * 50,
    "samples/\u00e9t\u00e9_epoch_2.json": b"{}",
    "empty.json": b"",
}


def _written(path: Path, method: int, zip64: bool = False) -> Path:
    """The contents zipped; ``zip64``: a zip64 extra in each local header and a zip64 end
    record, as zipfile writes past 65,535 members (its limit lowered to write one small)."""
    with pytest.MonkeyPatch.context() as patch:
        if zip64:
            patch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 1)
        with zipfile.ZipFile(path, "w", method) as archive:
            for name, data in CONTENTS.items():
                with archive.open(name, "w", force_zip64=zip64) as member:
                    member.write(data)
    return path


def _as_zipfile_reads(path: Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def _as_we_read(path: Path) -> list[tuple[str, bytes]]:
    with Archive(path) as archive:
        return [(member.filename, archive.read(member)) for member in archive.members("")]


@pytest.mark.parametrize(
    ("method", "zip64"),
    [
        (zipfile.ZIP_STORED, False),
        (zipfile.ZIP_DEFLATED, False),
        (zipfile.ZIP_BZIP2, False),  # zipfile's own method: read by zipfile
        (zipfile.ZIP_DEFLATED, True),  # a zip64 end record: the directory read by zipfile
    ],
)
def test_every_member_reads_as_zipfile_reads_it(tmp_path: Path, method: int, zip64: bool) -> None:
    path = _written(tmp_path / "a.zip", method, zip64=zip64)
    assert _as_we_read(path) == _as_zipfile_reads(path)
    with Archive(path) as archive:
        assert set(archive.names()) == set(CONTENTS)
        assert archive.read("samples/\u00e9t\u00e9_epoch_2.json") == b"{}"
        with pytest.raises(KeyError):
            archive.read("absent.json")


def test_an_archive_after_a_stub_is_read_at_its_offsets(tmp_path: Path) -> None:
    """A zip behind other bytes (a self-extracting stub): every offset moves by the stub."""
    inner = _written(tmp_path / "inner.zip", zipfile.ZIP_DEFLATED)
    stubbed = tmp_path / "stubbed.zip"
    stubbed.write_bytes(b"#!stub\n" * 100 + inner.read_bytes())
    assert _as_we_read(stubbed) == _as_zipfile_reads(inner)


def test_inspects_zstd_log_reads_member_for_member() -> None:
    path = FIXTURES / "inspect-run1.eval"
    with zipfile.ZipFile(path) as archive:
        infos = [(i.filename, i.file_size, i.CRC) for i in archive.infolist()]
    with Archive(path) as archive:
        assert [(m.filename, m.file_size, m.crc) for m in archive.members("")] == infos
        assert all(len(archive.read(m)) == m.file_size for m in archive.members(""))


@pytest.mark.parametrize("cut", [10, 60, 400])
def test_a_cut_archive_is_a_bad_zip_file(tmp_path: Path, cut: int) -> None:
    """Cut inside its end record, its directory or its members: refused, never misread."""
    whole = _written(tmp_path / "a.zip", zipfile.ZIP_DEFLATED).read_bytes()
    damaged = tmp_path / "cut.zip"
    damaged.write_bytes(whole[:-cut])
    with pytest.raises(zipfile.BadZipFile), Archive(damaged) as archive:
        for member in archive.members(""):
            archive.read(member)


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZSTD])
def test_members_gathered_in_one_read_read_as_each_alone(tmp_path: Path, method: int) -> None:
    """A batch's members read at once (``gather``): each, and the one past them whose bytes
    the read holds only in part, reads as it reads alone, whole or as a head."""
    contents = {f"samples/{'n' * n}.json": bytes(range(n, n + 90)) * n for n in range(1, 12)}
    path = tmp_path / "a.zip"
    if method == ZSTD:
        zstd_archive(path, contents)
    else:
        with zipfile.ZipFile(path, "w", method) as archive:
            for name, data in contents.items():
                archive.writestr(name, data)
    names = list(contents)
    with Archive(path) as alone, Archive(path) as together:
        together.gather(names[3:7])
        for name in names:
            assert together.read(name) == alone.read(name) == contents[name]
            assert together.head(name, 100) == alone.head(name, 100)
        together.gather([*names, "absent.json"])
        assert [together.read(name) for name in names] == list(contents.values())
