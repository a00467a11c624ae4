"""The bubblewrap command line of one sandboxed program: pure, so every wall can be read here.

The walls, in the order bwrap builds them (a later mount lies over an earlier one):
the host read-only; a fresh /dev and /proc (its own PID namespace, so the host's
processes are not there); an empty /run (a read-only mount does not stop a connect() to
the host's service sockets there); private empty /tmp and $HOME, each no larger than its
memory;
the program's own files from $HOME or /tmp read-only; the attempt's own copy of the working
folder at the folder's path, read-only but for its ``writable`` folders; no network
but its own loopback.

Limits are rlimits, set by util-linux's ``prlimit`` inside the sandbox, per process:
address space (memory), CPU seconds and processes. cgroups would count the sandbox as
a whole, but a user may write cgroup v2 files only where systemd delegates them, and
many machines (this project's CI among them) mount v1 or give no delegation; rlimits
work for every user everywhere. The process count is counted per user namespace
(Linux >= 5.14), so one sandbox's fork bomb does not starve another's.

Run as root, the program must not run as root: the kernel ignores the process limit
for root, and root in a sandbox could still read what only root may. So bwrap itself
is started as ``nobody`` (``as_root`` False) and builds the walls as any user does, in
a user namespace of its own, whenever nobody can reach all it binds (core/sandbox/room.py
looks); else (a toolchain under /root, say) bwrap runs as root, with root's rights to
mount, and the program is made ``nobody`` (``setpriv``) in a user namespace of its own
(``unshare``): two more program starts, a quarter of what a sandbox adds per attempt
(bench/sandbox_walls.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Who a program runs as in a sandbox made by root: the conventional unprivileged user.
NOBODY = 65534
#: Where systemd-resolved keeps the resolv.conf that /etc/resolv.conf may link to.
RESOLVER = "/run/systemd/resolve"
#: CPU seconds past the soft limit (SIGXCPU, which says why) before the hard one (SIGKILL).
CPU_GRACE = 1


@dataclass(frozen=True, slots=True)
class Layout:
    """Where one attempt's sandbox finds things on the host, and what it may use."""

    folder: Path
    """The working folder (absolute): where the program runs and sees its copy."""
    copy: Path
    """This attempt's copy of it, seen read-only at ``folder``..."""
    writable: tuple[str, ...] = ()
    """... but for these folders of it ('.' the whole), which it may write."""
    home: Path | None = None
    """The user's $HOME, hidden behind an empty private one; None when it is '/'."""
    readable: tuple[Path, ...] = ()
    """What under $HOME or /tmp the program needs (its interpreter's install, its script's
    folder), seen read-only (core/sandbox/seen.py)."""
    network: bool = False
    memory_mb: int = 1024
    cpu_seconds: int = 60
    processes: int = 256
    as_root: bool = False
    """bwrap runs as root and makes the program nobody itself (see above)."""


def bwrap_argv(bwrap: str, layout: Layout, argv: Sequence[str]) -> list[str]:
    """The whole command line: bwrap, its walls, the limits, then the program's ``argv``."""
    memory = layout.memory_mb * 1024 * 1024
    # --perms 1777: writable by whoever the program runs as (nobody, when root made it).
    private = ["--perms", "1777", "--size", str(memory), "--tmpfs"]
    walls = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *private, "/tmp"]
    # /run holds the host's service sockets (docker's, dbus's): its own, empty, but for DNS.
    walls += ["--tmpfs", "/run"]
    if layout.network:
        walls += ["--ro-bind-try", RESOLVER, RESOLVER]
    hidden = [Path("/tmp")]
    if layout.home is not None:
        walls += [*private, str(layout.home)]
        hidden.append(layout.home)
    made: set[Path] = set()
    for path in layout.readable:
        walls += [*_way_to(path, hidden, made), "--ro-bind", str(path), str(path)]
    walls += _way_to(layout.folder, hidden, made)
    bind = "--bind" if "." in layout.writable else "--ro-bind"
    walls += [bind, str(layout.copy), str(layout.folder)]
    for name in layout.writable:
        if name != ".":
            walls += ["--bind", str(layout.copy / name), str(layout.folder / name)]
    walls += ["--chdir", str(layout.folder)]
    spaces = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not layout.network:
        spaces.append("--unshare-net")
    # Nothing outlives the attempt: bwrap dies with its parent (the keeper, which dies with
    # us), and as pid 1 of its PID namespace takes all it started along (core/sandbox/tether.py).
    spaces += ["--die-with-parent", "--new-session"]
    limits = [
        "prlimit",
        f"--as={memory}",
        f"--cpu={layout.cpu_seconds}:{layout.cpu_seconds + CPU_GRACE}",
        f"--nproc={layout.processes}",
        "--",
    ]
    if layout.as_root:
        spaces += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        user = [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
            "unshare",
            "--user",
            "--",
        ]
    else:
        spaces += ["--unshare-user", "--disable-userns"]
        user = []
    return [bwrap, *walls, *spaces, "--", *user, *limits, *argv]


def _way_to(path: Path, hidden: list[Path], made: set[Path]) -> list[str]:
    """Folders leading to ``path`` inside a private /tmp or $HOME, made passable (0755).

    bwrap would make them 0700 and owned by root, which a program run as nobody
    cannot pass through to reach what is bound beyond them.
    """
    root = next((top for top in hidden if path.is_relative_to(top) and path != top), None)
    if root is None:
        return []
    steps: list[str] = []
    for parent in reversed(path.parents):
        if parent.is_relative_to(root) and parent != root and parent not in made:
            made.add(parent)
            steps += ["--perms", "0755", "--dir", str(parent)]
    return steps
