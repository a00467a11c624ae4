"""Zip archives for the import tests: one member damaged in place, as a bad disk or a cut copy
would, and an archive of zstd members, as inspect_ai writes them."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from passk_tui.imports.zip_members import ZSTD


def spoil_member(path: Path, name: str, at: int, data: bytes) -> None:
    """Overwrite ``data`` at ``at`` bytes into member ``name``'s stored (compressed) bytes,
    found past its local header (whose extra field zipfile writes as the central one)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    spoiled = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + at
    spoiled[start : start + len(data)] = data
    path.write_bytes(bytes(spoiled))


def zstd_archive(path: Path, members: dict[str, bytes]) -> Path:
    """An archive of zstd members (method 93) as inspect_ai writes them: each a streamed frame
    (its size not in its header), which Python's zipfile cannot write."""
    import zstandard

    local, central = bytearray(), bytearray()
    for name, data in members.items():
        packer = zstandard.ZstdCompressor().compressobj()
        packed = packer.compress(data) + packer.flush()
        raw_name = name.encode()
        fields = (ZSTD, 0, 0, zlib.crc32(data), len(packed), len(data), len(raw_name))
        central += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0, *fields, 0, 0, 0, 0, 0, len(local)
        )
        central += raw_name
        local += struct.pack("<4s5H3L2H", b"PK\x03\x04", 63, 0, *fields, 0) + raw_name + packed
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(local), 0
    )
    path.write_bytes(bytes(local + central + end))
    return path
