"""Members of a zip archive read one at a time, zstd-compressed ones included.

inspect_ai writes ``.eval`` logs as zip archives whose members are zstd-compressed
(method 93), which Python 3.11's ``zipfile`` cannot open; such a member's raw bytes are
read from its local header and decompressed with ``zstandard``. Only one member is ever
held in memory, so a log of any size is read in the memory of its largest sample.

The central directory is read here too: a log of 50,000 samples has 50,000 entries, and
``zipfile`` makes a ``ZipInfo`` of each (its extras, dates and flags decoded: 0.6 s) where
an import needs a name, an offset, two sizes, a checksum and a method. An archive this
lean reader does not cover (zip64, split, a method other than stored, deflate or zstd) is
left to ``zipfile``.

A reader that wants only the start of a zstd member (a sample's ``messages``, which inspect
writes before its ``events``, most of its bytes) reads a head of it (``head``), a longer one
if that is not enough: the rest is never decompressed. What that gives up: the member's size
and CRC-32 are checked only when it is read to its end (inspect's frames carry no checksum
of their own). Damage in its unread tail goes unseen, and changes nothing that was read.
Damage in what is read is an error naming the member where zstd sees it (a damaged frame
header, a block that does not decode) or where the JSON read from it no longer parses; damage
that only changes the bytes of a text is read as it is, where the checksum would have told.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator, KeysView
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, NamedTuple, Self

#: The zip method number of Zstandard (APPNOTE 4.4.5).
ZSTD = 93
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_MAGIC = b"PK\x03\x04"
#: A local header's last two fields, its name's and its extra field's lengths, and where.
_LOCAL_LENGTHS = struct.Struct("<2H")
_LOCAL_LENGTHS_AT = _LOCAL_HEADER.size - _LOCAL_LENGTHS.size
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_CENTRAL_MAGIC = b"PK\x01\x02"
_END = struct.Struct("<4s4H2LH")
_END_MAGIC = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
#: A field at its largest says "the value is in the zip64 extra field": zipfile reads those.
_ZIP64_MARKS = (0xFFFF, 0xFFFFFFFF)
#: How much local-header extra a member's read takes in one go (past it, a second read).
_EXTRA_ROOM = 64
#: Most bytes ``gather`` reads at once.
_SPAN = 4 << 20


class Member(NamedTuple):
    """One entry of the central directory: what reading its bytes takes."""

    filename: str
    header_offset: int
    compress_size: int
    file_size: int
    crc: int
    method: int
    flags: int


class Archive:
    """An open zip archive: its member names in order, each member's bytes on request."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._raw = path.open("rb")
        try:
            members = _directory(self._raw) or _directory_by_zipfile(path)
        except struct.error:
            self._raw.close()
            raise zipfile.BadZipFile("its central directory is cut short") from None
        except (OSError, zipfile.BadZipFile):
            self._raw.close()
            raise
        self._members = members
        self._by_name = {member.filename: member for member in members}
        self._zip: zipfile.ZipFile | None = None  # only for a method of zipfile's own
        self._span: tuple[int, bytes] | None = None  # members' bytes read together (``gather``)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def again(self) -> Archive:
        """A second handle on this archive, kept open when this one is closed: the same
        file (its descriptor duplicated) and members, the central directory not read again."""
        other = object.__new__(Archive)
        other.path = self.path
        other._raw = os.fdopen(os.dup(self._raw.fileno()), "rb")
        other._members = self._members
        other._by_name = self._by_name
        other._zip = None
        other._span = None
        return other

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
        self._raw.close()

    def names(self) -> KeysView[str]:
        return self._by_name.keys()

    def members(self, prefix: str) -> Iterator[Member]:
        """The members under ``prefix``, in the archive's order."""
        return (member for member in self._members if member.filename.startswith(prefix))

    def read(self, name: str | Member) -> bytes:
        """One member's bytes, decompressed; zipfile.BadZipFile or ValueError when damaged,
        KeyError when there is no such member."""
        member = name if isinstance(name, Member) else self._by_name[name]
        if member.method not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZSTD):
            if self._zip is None:
                self._zip = zipfile.ZipFile(self.path)
            return self._zip.read(member.filename)
        if member.flags & 0x1:
            raise zipfile.BadZipFile(f"{member.filename} is encrypted")
        compressed = self._compressed(member)
        if member.method == zipfile.ZIP_STORED:
            data = compressed
        elif member.method == zipfile.ZIP_DEFLATED:
            try:
                data = zlib.decompress(compressed, -15)
            except zlib.error as exc:
                raise zipfile.BadZipFile(f"cannot decompress: {exc}") from None
        else:
            data = _zstd_decompress(compressed)
        return self._checked(member, data)

    def head(self, name: str | Member, size: int) -> tuple[bytes, bool]:
        """A zstd member's first ``size`` bytes, decompressed no further, and whether they are
        the whole member (then its size and checksum checked as ``read`` checks them). A
        member of another method, or no longer than ``size``, is read whole. zipfile.BadZipFile
        for damage in what is read."""
        member = name if isinstance(name, Member) else self._by_name[name]
        if member.method != ZSTD or member.flags & 0x1 or member.file_size <= size:
            return self.read(member), True
        try:
            head: bytes = _decompressor().stream_reader(self._compressed(member)).read(size)
        except _zstd_error() as exc:
            raise zipfile.BadZipFile(f"cannot decompress: {exc}") from None
        if len(head) < size:  # shorter than the directory says: read whole, it is refused
            return self.read(member), True
        return head, False

    def _checked(self, member: Member, data: bytes) -> bytes:
        if len(data) != member.file_size or zlib.crc32(data) != member.crc:
            raise zipfile.BadZipFile(f"{member.filename} is damaged (its checksum differs)")
        return data

    def gather(self, names: Iterable[str]) -> None:
        """The bytes of these members read at once when they lie within ``_SPAN`` bytes (a
        batch of samples, one after another in the archive: one read where there were as
        many as samples), kept for their reads until the next call; forgotten when they
        do not, or when there are none."""
        by_name = self._by_name
        members = [by_name[name] for name in names if name in by_name]
        self._span = None
        if not members:
            return
        start = min(member.header_offset for member in members)
        end = max(member.header_offset + _stored_room(member) for member in members)
        if end - start <= _SPAN:
            with contextlib.suppress(OSError):  # each member's own read then says what fails
                self._span = (start, os.pread(self._raw.fileno(), end - start, start))

    def _compressed(self, member: Member) -> bytes:
        """The member's stored bytes, after its local header: one read when its extra is short
        (none when it is in the bytes gathered)."""
        start, size = member.header_offset, member.compress_size
        span = self._span
        if span is not None and span[0] <= start <= span[0] + len(span[1]) - _LOCAL_HEADER.size:
            chunk, at = span[1], start - span[0]  # its header there: the rest where it is
        else:
            chunk, at = os.pread(self._raw.fileno(), _stored_room(member), start), 0
        if len(chunk) - at < _LOCAL_HEADER.size or not chunk.startswith(_LOCAL_MAGIC, at):
            raise zipfile.BadZipFile(f"bad local header for {member.filename}")
        name_length, extra_length = _LOCAL_LENGTHS.unpack_from(chunk, at + _LOCAL_LENGTHS_AT)
        begin = at + _LOCAL_HEADER.size + name_length + extra_length
        data = chunk[begin : begin + size]
        if len(data) < size:  # a long extra, or the end of the span: read them where they are
            data = os.pread(self._raw.fileno(), size, start + begin - at)
        if len(data) != size:
            raise zipfile.BadZipFile(f"{member.filename} is cut short")
        return data


def _stored_room(member: Member) -> int:
    """The bytes read for a member: its local header, with room for its name and an extra
    field of ``_EXTRA_ROOM`` bytes, then its stored bytes."""
    return _LOCAL_HEADER.size + len(member.filename) * 4 + _EXTRA_ROOM + member.compress_size


def _directory(raw: BinaryIO) -> list[Member] | None:
    """The central directory's entries, read from its end record; None for an archive this
    reader leaves to zipfile (zip64, several disks); zipfile.BadZipFile when there is none."""
    raw.seek(0, os.SEEK_END)
    size = raw.tell()
    tail_start = max(0, size - _END.size - 0xFFFF)  # the end record, then a comment of <= 64 KiB
    raw.seek(tail_start)
    tail = raw.read()
    at = tail.rfind(_END_MAGIC)
    if at < 0 or len(tail) - at < _END.size:
        raise zipfile.BadZipFile("File is not a zip file")
    _, disk, cd_disk, _, count, cd_size, cd_offset, _ = _END.unpack_from(tail, at)
    if (
        disk
        or cd_disk
        or count in _ZIP64_MARKS
        or cd_size in _ZIP64_MARKS
        or cd_offset in _ZIP64_MARKS
        or tail[max(0, at - 20) : at - 16] == _ZIP64_LOCATOR
    ):
        return None
    end = tail_start + at
    concat = end - cd_size - cd_offset  # bytes before the archive (a self-extractor's stub)
    if concat < 0:
        raise zipfile.BadZipFile("Bad offset for central directory")
    raw.seek(end - cd_size)
    directory = raw.read(cd_size)
    return _entries(directory, count, concat)


def _entries(directory: bytes, count: int, concat: int) -> list[Member] | None:
    members: list[Member] = []
    unpack, fixed, magic, make = _CENTRAL.unpack_from, _CENTRAL.size, _CENTRAL_MAGIC, Member._make
    at = 0
    for _ in range(count):
        (sign, _, _, _, _, flags, method, _, _, crc, compressed, size, name_length,
         extra_length, comment_length, _, _, _, offset) = unpack(directory, at)  # fmt: skip
        if sign != magic:
            raise zipfile.BadZipFile("Bad magic number for central directory")
        if 0xFFFFFFFF in (compressed, size, offset):
            return None  # its real value is in a zip64 extra field
        raw_name = directory[at + fixed : at + fixed + name_length]
        # cp437 is a Python codec (a third of the time here); ASCII is itself in both.
        codec = "utf-8" if flags & 0x800 else "ascii" if raw_name.isascii() else "cp437"
        name = raw_name.decode(codec)
        if "\x00" in name:
            name = name.split("\x00", 1)[0]  # as zipfile reads such a name
        members.append(make((name, offset + concat, compressed, size, crc, method, flags)))
        at += fixed + name_length + extra_length + comment_length
    return members


def _directory_by_zipfile(path: Path) -> list[Member]:
    with zipfile.ZipFile(path) as archive:
        return [
            Member(
                info.filename,
                info.header_offset,
                info.compress_size,
                info.file_size,
                info.CRC,
                info.compress_type,
                info.flag_bits,
            )
            for info in archive.infolist()
        ]


@cache
def _decompressor() -> Any:
    """One decompressor for every member (making one per member costs more than a small
    member's decompression); each frame gets its own ``decompressobj``."""
    import zstandard

    return zstandard.ZstdDecompressor()


@cache
def _zstd_error() -> type[Exception]:
    import zstandard  # only for zstd members: most archives never need it

    error: type[Exception] = zstandard.ZstdError
    return error


def _zstd_decompress(data: bytes) -> bytes:
    """Zstandard frames, one or several, decompressed."""
    decompressor = _decompressor()
    parts: list[bytes] = []
    try:
        while data:  # inspect_ai starts a new frame every 200 MiB of input
            frame = decompressor.decompressobj()
            parts.append(frame.decompress(data))
            data = frame.unused_data
    except _zstd_error() as exc:
        raise zipfile.BadZipFile(f"cannot decompress: {exc}") from None
    return b"".join(parts)
