"""Members of a zip archive read one at a time, zstd-compressed ones included.

inspect_ai writes ``.eval`` logs as zip archives whose members are zstd-compressed
(method 93), which Python 3.11's ``zipfile`` cannot open; such a member's raw bytes are
read from its local header and decompressed with ``zstandard``. Only one member is ever
held in memory, so a log of any size is read in the memory of its largest sample.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Any, Self

#: The zip method number of Zstandard (APPNOTE 4.4.5).
ZSTD = 93
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_MAGIC = b"PK\x03\x04"


class Archive:
    """An open zip archive: its member names in order, each member's bytes on request."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip = zipfile.ZipFile(path)
        self._raw = path.open("rb")
        self._names = set(self._zip.namelist())

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()
        self._raw.close()

    def names(self) -> set[str]:
        return self._names

    def members(self, prefix: str) -> Iterator[zipfile.ZipInfo]:
        """The members under ``prefix``, in the archive's order."""
        return (info for info in self._zip.infolist() if info.filename.startswith(prefix))

    def read(self, name: str | zipfile.ZipInfo) -> bytes:
        """One member's bytes, decompressed; zipfile.BadZipFile or ValueError when damaged."""
        info = name if isinstance(name, zipfile.ZipInfo) else self._zip.getinfo(name)
        if info.compress_type != ZSTD:
            return self._zip.read(info)
        self._raw.seek(info.header_offset)
        header = self._raw.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_MAGIC:
            raise zipfile.BadZipFile(f"bad local header for {info.filename}")
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        self._raw.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
        compressed = self._raw.read(info.compress_size)
        data = _zstd_decompress(compressed)
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise zipfile.BadZipFile(f"{info.filename} is damaged (its checksum differs)")
        return data


@cache
def _decompressor() -> Any:
    """One decompressor for every member (making one per member costs more than a small
    member's decompression); each frame gets its own ``decompressobj``."""
    import zstandard

    return zstandard.ZstdDecompressor()


def _zstd_decompress(data: bytes) -> bytes:
    """Zstandard frames, one or several, decompressed."""
    import zstandard  # only for zstd members: most archives never need it

    decompressor = _decompressor()
    parts: list[bytes] = []
    try:
        while data:  # inspect_ai starts a new frame every 200 MiB of input
            frame = decompressor.decompressobj()
            parts.append(frame.decompress(data))
            data = frame.unused_data
    except zstandard.ZstdError as exc:
        raise zipfile.BadZipFile(f"cannot decompress: {exc}") from None
    return b"".join(parts)
