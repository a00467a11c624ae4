"""Damage one member of a zip archive in place, as a bad disk or a cut copy would."""

from __future__ import annotations

import zipfile
from pathlib import Path


def spoil_member(path: Path, name: str, at: int, data: bytes) -> None:
    """Overwrite ``data`` at ``at`` bytes into member ``name``'s stored (compressed) bytes,
    found past its local header (whose extra field zipfile writes as the central one)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    spoiled = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + at
    spoiled[start : start + len(data)] = data
    path.write_bytes(bytes(spoiled))
