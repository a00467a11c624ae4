"""The attempt's own copy of the working folder: what a sandbox sees there, and may write.

Copied, not shown in place: the original may be readable only by its owner (a
sandbox made by root runs as nobody), and nothing written inside may reach it.
Links are copied as links, never followed, so a link out of the folder leads to
the read-only host, not to a copy of it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from passk_tui.core.sandbox.bwrap import NOBODY


class WritableOutside(Exception):
    """A ``writable`` folder that leads out of the copy (it is a link): never bound writable."""


def copy_folder(folder: Path, copy: Path, writable: tuple[str, ...], as_root: bool) -> None:
    """Copy ``folder`` to ``copy`` (new); owned by nobody when root makes the sandbox."""
    shutil.copytree(folder, copy, symlinks=True)
    for name in writable:
        inside = (copy / name).resolve()
        if not inside.is_relative_to(copy.resolve()) or not inside.is_dir():
            raise WritableOutside(f"writable {name!r} is not a folder inside the working folder")
    if as_root:
        _give_to_nobody(copy)


def _give_to_nobody(root: Path) -> None:
    """The copy owned by the user the sandbox runs as, so that it may read and write it."""
    os.lchown(root, NOBODY, NOBODY)
    for parent, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            os.lchown(os.path.join(parent, name), NOBODY, NOBODY)
