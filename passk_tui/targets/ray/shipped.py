"""A folder shipped to the nodes through Ray's object store: what a `command` check needs.

Ray ships a local folder only as the whole job's working directory (the agents file's
folder, for the agent); a task's own must be a URI. So the cases file's folder is packed
here once (a zip in the object store, named by its digest) and unpacked on each node
once, where every check of it runs.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

#: The most a shipped folder may hold (Ray's own limit for a working directory).
MOST_BYTES = 100 * 1024 * 1024


class TooLarge(Exception):
    """A folder over ``MOST_BYTES``: the check cannot be shipped."""


def packed(folder: Path) -> tuple[bytes, str]:
    """``folder`` as a zip and its digest; links are followed (the node has no target)."""
    buffer = io.BytesIO()
    total = 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                total += path.stat().st_size
                if total > MOST_BYTES:
                    raise TooLarge(f"{folder} holds over {MOST_BYTES // 2**20} MB to ship")
                archive.write(path, path.relative_to(folder).as_posix())
    data = buffer.getvalue()
    return data, hashlib.sha256(data).hexdigest()[:16]


def unpacked(data: bytes, digest: str) -> Path:
    """The folder on this node: unpacked once per digest, by whichever task comes first."""
    home = Path(tempfile.gettempdir()) / f"passk-shipped-{digest}"
    if home.is_dir():
        return home
    landing = Path(tempfile.mkdtemp(prefix=f"passk-shipping-{digest}-"))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(landing)
    landing.chmod(0o755)  # a sandbox made by root reads it as nobody
    try:
        os.rename(landing, home)
    except OSError:  # another task of this node got there first
        shutil.rmtree(landing, ignore_errors=True)
    return home
