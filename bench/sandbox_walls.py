"""What each wall of a sandbox costs: bwrap's command line with one wall left out at a time.

    PYTHONPATH=. python bench/sandbox_walls.py [--rounds 30]

Runs ``/bin/true`` through the sandbox's own command line (core/sandbox/bwrap.py) as a
default sandbox builds it, then the same with one part taken out, round after round and
interleaved so that every variant shares the machine's load alike. What a part costs is
the median of the paired differences against the whole. Run as root, it also times the
two ways root makes a sandbox: bwrap run as nobody, and bwrap run as root switching the
program to nobody (setpriv, unshare). None of the reduced lines is safe to use: they are
measurements, not options.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from harness import machine

from passk_tui.core.sandbox.bwrap import NOBODY, Layout, bwrap_argv

TRUE = ["/bin/true"]


def without(argv: list[str], *parts: str) -> list[str]:
    """``argv`` with the first run of ``parts`` taken out."""
    size = len(parts)
    for start in range(len(argv) - size + 1):
        if argv[start : start + size] == list(parts):
            return argv[:start] + argv[start + size :]
    raise ValueError(f"not in the command line: {' '.join(parts)}")


def variants(folder: Path, copy: Path) -> dict[str, tuple[list[str], int | None]]:
    """Each command line to time, and the user it starts as (None: as we are)."""
    bwrap = "/usr/bin/bwrap"
    home = Path(os.path.expanduser("~"))
    as_user = bwrap_argv(bwrap, Layout(folder=folder, copy=copy, home=home), TRUE)
    found: dict[str, tuple[list[str], int | None]] = {"plain /bin/true": (TRUE, None)}
    user = NOBODY if os.geteuid() == 0 else None
    found["whole sandbox"] = (as_user, user)
    parts = {
        "--dev": ["--dev", "/dev"],
        "--proc": ["--proc", "/proc"],
        "--unshare-net": ["--unshare-net"],
        "--unshare-ipc, -uts, -cgroup": ["--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"],
        "--tmpfs /run": ["--tmpfs", "/run"],
        "prlimit": ["prlimit", *as_user[as_user.index("prlimit") + 1 : as_user.index(TRUE[0])]],
    }
    for name, removed in parts.items():
        found[f"without {name}"] = (without(as_user, *removed), user)
    if os.geteuid() == 0:
        layout = Layout(folder=folder, copy=copy, home=home, as_root=True)
        found["bwrap as root, setpriv + unshare"] = (bwrap_argv(bwrap, layout, TRUE), None)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir="/var/tmp") as scratch:
        folder, copy = Path(scratch) / "folder", Path(scratch) / "copy"
        for path in (folder, copy):
            path.mkdir()
        Path(scratch).chmod(0o755)
        if os.geteuid() == 0:
            os.chown(copy, NOBODY, NOBODY)
        lines = variants(folder, copy)
        times: dict[str, list[float]] = {name: [] for name in lines}
        for _ in range(args.rounds):
            for name, (argv, user) in lines.items():
                start = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, cwd="/", user=user, group=user)
                times[name].append(time.perf_counter() - start)
                assert done.returncode == 0, (name, done.stderr)
    print(machine())
    print(f"{args.rounds} rounds of /bin/true, each command line once a round")
    whole = times["whole sandbox"]
    for name, values in times.items():
        paired = statistics.median(t - w for t, w in zip(values, whole, strict=True))
        print(
            f"{name:36} median {statistics.median(values) * 1000:6.1f} ms  ({paired * 1000:+.1f})"
        )


if __name__ == "__main__":
    main()
