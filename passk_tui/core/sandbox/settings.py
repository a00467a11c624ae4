"""What a sandbox allows, as a `sandbox = true` or `sandbox = { ... }` table says it.

One reading for the three places that may ask for one (a `command` agent, a
`command` check, a tool), so the words and defaults are the same everywhere.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.text.mentions import type_name

#: The defaults (docs/sandboxes.md): 1024 MB of memory, 256 processes; CPU time defaults to the timeout.
MEMORY_MB = 1024
PROCESSES = 256
#: What the user installs when bubblewrap is missing (Debian's and most distributions' name).
PACKAGE = "bubblewrap"

_KEYS = ("network", "memory_mb", "cpu_seconds", "processes", "writable")


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """The walls of one sandbox: what it may reach and how much it may use."""

    network: bool = False
    """True: the host's network; False: its own loopback only."""
    memory_mb: int = MEMORY_MB
    """Address space per process, and the size of each of its private $HOME and /tmp."""
    cpu_seconds: int | None = None
    """CPU time per process; None: the attempt's (or the check's) timeout."""
    processes: int = PROCESSES
    """Processes and threads it may have at once."""
    writable: tuple[str, ...] = ()
    """Folders of the working folder it may write: each its own copy for the attempt."""

    def described(self) -> dict[str, Any]:
        """The settings as JSON values, for the agent definition (what was measured)."""
        return {**asdict(self), "writable": list(self.writable)}


def parse_sandbox(value: Any, where: str, folder: Path) -> SandboxSettings | None:
    """``sandbox = true | false | { ... }`` read and checked; None for false.

    ``folder`` is the working folder, which each ``writable`` folder must be in.
    A sandbox asked for where bubblewrap is missing is bad input (exit 2) naming the
    package: never a silent run on the host.
    """
    where = f"{where}: sandbox"
    if value is False:
        return None
    if value is True:
        settings = SandboxSettings()
    elif isinstance(value, dict):
        settings = _table(value, where)
        for name in settings.writable:
            inside = (folder / name).resolve()
            if not inside.is_dir() or not inside.is_relative_to(folder.resolve()):
                raise InputError(f"{where}: writable folder {name!r} is not a folder in {folder}")
    else:
        raise InputError(f"{where} must be true, false or a table, got {type_name(value)}")
    missing = bubblewrap_missing()
    if missing:
        raise InputError(f"{where}: {missing}")
    return settings


def bubblewrap_missing() -> str | None:
    """Why no sandbox can be made here ('bubblewrap is not installed ...'), or None."""
    if not sys.platform.startswith("linux"):
        return f"sandboxes need Linux and bubblewrap; this is {sys.platform}"
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: install the package '{PACKAGE}'"
    return None


def _table(table: dict[str, Any], where: str) -> SandboxSettings:
    for key in table:
        if key not in _KEYS:
            raise InputError(f"{where}: unknown key {key!r} (expected: {', '.join(_KEYS)})")
    network = table.get("network", False)
    if not isinstance(network, bool):
        raise InputError(f"{where}: network must be true or false")
    cpu = table.get("cpu_seconds")
    return SandboxSettings(
        network=network,
        memory_mb=_count(table, "memory_mb", MEMORY_MB, where),
        cpu_seconds=None if cpu is None else _count(table, "cpu_seconds", 0, where),
        processes=_count(table, "processes", PROCESSES, where),
        writable=_writable(table.get("writable", []), where),
    )


def _count(table: dict[str, Any], key: str, default: int, where: str) -> int:
    """A whole number >= 1 (bool is not one, though Python says it is an int)."""
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{where}: {key} must be a whole number of at least 1")
    return value


def _writable(value: Any, where: str) -> tuple[str, ...]:
    """Folders inside the working folder ('.' the whole of it), never outside it."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{where}: writable must be a list of folder names")
    folders = []
    for item in value:
        path = PurePosixPath(item)
        if not item or path.is_absolute() or ".." in path.parts:
            raise InputError(
                f"{where}: writable {item!r} must be a folder inside the working folder"
            )
        folders.append(str(path))
    return tuple(folders)
