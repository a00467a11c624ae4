"""What a sandbox still sees of the private $HOME and /tmp: the program's own files, read-only.

Both are empty in a sandbox, so a program that lives there would be out of its own
sight: a venv in a clone under /tmp, a pyenv under $HOME, a check's script beside a
repository cloned under /tmp. Only those are shown, each read-only at its own path;
never the whole of $HOME or /tmp.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path


def program_seen(program: str, folder: Path, hidden: Sequence[Path]) -> tuple[Path, ...]:
    """What of ``hidden`` (the private /tmp and $HOME) the program run from ``folder`` needs:
    its install (``~/.venvs/x`` for ``~/.venvs/x/bin/python3``, a CI clone's
    ``/tmp/ci/.venv``, and the pyenv interpreter it links to) or its script's folder."""
    found = str(folder / program) if os.sep in program else shutil.which(program)
    return () if found is None else _shown([found], folder, hidden)


def files_seen(arguments: Sequence[str], folder: Path, hidden: Sequence[Path]) -> tuple[Path, ...]:
    """What of ``hidden`` the files named by ``arguments`` need: each one's folder (a check's
    ``python3 ../checks/run.py`` beside its modules); ``folder`` itself is copied anyway."""
    named = [str(folder / arg) for arg in arguments if arg and os.path.isfile(folder / arg)]
    return _shown(named, folder, hidden)


def _shown(paths: Sequence[str], folder: Path, hidden: Sequence[Path]) -> tuple[Path, ...]:
    """What to show for ``paths`` (as named, and with their links followed)."""
    found: list[Path] = []
    for path in paths:
        for way in (Path(os.path.abspath(path)), Path(os.path.realpath(path))):
            shown = _shown_for(way, hidden)
            if shown is not None and not shown.is_relative_to(folder) and shown not in found:
                found.append(shown)
    return tuple(found)


def _shown_for(path: Path, hidden: Sequence[Path]) -> Path | None:
    """What to show for ``path`` when it lies in ``hidden``: its install (a venv's or an
    interpreter's, for ``.../bin/python3``) or its folder (a script beside its modules),
    the file alone when that folder is /tmp or $HOME itself; None when not hidden."""
    top = next((top for top in hidden if path.is_relative_to(top) and path != top), None)
    if top is None:
        return None
    shown = path.parent.parent if path.parent.name == "bin" else path.parent
    return shown if shown.is_relative_to(top) and shown != top else path


def others_reach(paths: Sequence[Path]) -> bool:
    """True when any user (nobody, whom bwrap runs as when root makes a sandbox) may pass
    through every folder leading to each of ``paths``: bwrap binds from and onto paths."""
    for path in paths:
        for parent in path.parents:
            try:
                if not parent.stat().st_mode & stat.S_IXOTH:
                    return False
            except OSError:
                return False
    return True
