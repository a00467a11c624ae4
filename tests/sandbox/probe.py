"""A program that tries to get out of its sandbox, one way per run: the way is the text on stdin.

It writes one line (on stdout and stderr) saying what it reached and exits 3 when it got through a wall
(``breached: ...``), 0 when the wall held (``held: ...``). A limit probe that is
stopped by its limit dies as the limit makes it (MemoryError, BlockingIOError,
SIGXCPU). What it leaves on the host (a file, a process) the test looks for itself.
Settings come from the environment: PROBE_PORT, PROBE_UNIX, PROBE_MARK, PROBE_OUTSIDE, PROBE_COUNT.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def print(line: str) -> None:  # on both streams: an agent's error keeps only stderr
    sys.stdout.write(line + "\n")
    sys.stderr.write(line + "\n")


def loopback() -> bool:
    with socket.socket() as sock:
        sock.settimeout(2)
        try:
            sock.connect(("127.0.0.1", int(os.environ["PROBE_PORT"])))
        except OSError as error:
            print(f"held: {error}")
            return False
    print("breached: connected to the host's listener")
    return True


def unix_socket() -> bool:
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.connect(os.environ["PROBE_UNIX"])
        except OSError as error:
            print(f"held: {error}")
            return False
    print("breached: connected to the host's service socket")
    return True


def home() -> bool:
    """Reads every file at the top of $HOME: what a model should never see (keys, history)."""
    top = Path(os.path.expanduser("~"))
    names = sorted(entry.name for entry in top.iterdir())
    read = []
    for name in names:
        with contextlib.suppress(OSError):
            if (top / name).is_file():
                (top / name).read_bytes()
                read.append(name)
    if read:
        print(f"breached: read {' '.join(read)}")
        return True
    print(f"held: {' '.join(names)}")
    return False


def host_proc() -> bool:
    mark = os.environ["PROBE_MARK"].encode()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark in (entry / "cmdline").read_bytes():
                print(f"breached: saw the host's process {entry.name}")
                return True
        except OSError:
            continue
    print("held: no host process in /proc")
    return False


def write_folder() -> bool:
    for path in (Path("pwned-relative"), Path.cwd() / "pwned-absolute"):
        try:
            path.write_text("model code was here")
            print(f"wrote {path}")
        except OSError as error:
            print(f"held: {error}")
    return False  # whether the host's folder changed is for the test to see


def symlink() -> bool:
    try:
        (Path("escape") / "pwned-through-link").write_text("model code was here")
        print("wrote through the link")
    except OSError as error:
        print(f"held: {error}")
    return False


def fork_bomb() -> bool:
    children = []
    try:
        for _ in range(int(os.environ["PROBE_COUNT"])):
            pid = os.fork()
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            children.append(pid)
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    print(f"breached: started {len(children)} processes")
    return True


def allocate() -> bool:
    # 4 GB of memory asked for, none of it touched: the host lends it without using RAM.
    block = mmap.mmap(-1, 4 << 30)
    print(f"breached: allocated {len(block) >> 30} GB")
    return True


def left_running() -> bool:
    mark = os.environ["PROBE_MARK"] + "-left"
    code = "import time; time.sleep(120)"
    subprocess.Popen(
        [sys.executable, "-c", code, mark],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    print("left a process running")
    return False  # whether it outlived the attempt is for the test to see


def spin() -> bool:
    while True:
        pass


PROBES = {
    "loopback": loopback,
    "unix": unix_socket,
    "home": home,
    "proc": host_proc,
    "folder": write_folder,
    "symlink": symlink,
    "fork": fork_bomb,
    "memory": allocate,
    "left-running": left_running,
    "cpu": spin,
}

if __name__ == "__main__":
    breached = PROBES[sys.stdin.read().strip()]()
    sys.stdout.flush()
    os._exit(3 if breached else 0)
