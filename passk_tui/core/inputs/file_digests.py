"""The sha256 of a file's bytes: what a cases file was when it was loaded, what files an
import read.

An import is found again by its files' bytes (``evaluations.imported``), so every byte is
hashed before anything is read: 0.1 s for a 117 MB log. hashlib lets go of the GIL while it
hashes, so ``FileDigests`` reads and hashes the files on a thread while this process loads
the modules the import needs (``passk-tui import`` names the files first).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

from passk_tui.core.errors import InputError

#: How much of a file is read at a time: large enough that hashing, not reading, is the cost.
_CHUNK = 1 << 20


class FileDigests:
    """Each file's sha256 hex digest, in order, once ``digests`` is asked."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._paths = list(paths)
        self._digests: list[str] = []
        self._failed: InputError | None = None
        self._thread = threading.Thread(target=self._hash, daemon=True, name="passk-sha256")
        self._thread.start()

    def digests(self) -> list[str]:
        """The digests; InputError naming a file that could not be read."""
        self._thread.join()
        if self._failed is not None:
            raise self._failed
        return self._digests

    def _hash(self) -> None:
        for path in self._paths:
            try:
                self._digests.append(sha256_of(path))
            except InputError as exc:
                self._failed = exc
                return


def sha256_of(path: str | Path) -> str:
    """The file's sha256 hex digest; InputError naming it when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as file:
            while chunk := file.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return digest.hexdigest()
