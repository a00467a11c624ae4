"""What every benchmark shares: the machine, a server in its own process, a measured child, cases.

Run a benchmark from the repository root (``python bench/limit.py``) so that ``tests``
(the test stack) is importable by the child processes started here.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
PASSK = str(Path(PYTHON).with_name("passk-tui"))
CLK_TCK = os.sysconf("SC_CLK_TCK")


def machine() -> str:
    """One line naming the machine: CPUs, CPU model, Python, load (for docs/benchmarks/notebook.md)."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}, load {load()}"
    )


def load() -> str:
    """The 1, 5 and 15-minute load averages, to print beside figures taken on a shared machine."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def busiest() -> str:
    """The processes using the most CPU right now (to see whether the machine is quiet)."""
    try:
        out = subprocess.run(
            ["top", "-bn1", "-o", "%CPU"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = out.splitlines()
    head = [i for i, line in enumerate(lines) if line.lstrip().startswith("PID")]
    if not head:
        return ""
    rows = lines[head[0] + 1 : head[0] + 4]
    return "; ".join(" ".join(row.split()[8:9] + row.split()[11:12]) + "%" for row in rows)


def warn_if_busy(limit: float = 0.5) -> None:
    """Say so on stderr when the 1-minute load suggests other work is running."""
    load = os.getloadavg()[0]
    if load > limit:
        sys.stderr.write(f"bench: warning: load {load:.2f} > {limit}: figures may be noisy\n")


@dataclass
class Measured:
    """One child process, measured: wall seconds, CPU seconds, peak RSS (MB), exit status."""

    wall: float
    user: float
    sys: float
    rss_mb: float
    rc: int
    stdout: str
    stderr: str

    @property
    def cpu(self) -> float:
        return self.user + self.sys


def run_measured(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
    timeout: float = 900.0,
) -> Measured:
    """Run ``argv`` to its end; wall time from spawn to exit, CPU and RSS from wait4()."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err)
        give_up = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > give_up:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.002)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped
        out.seek(0)
        err.seek(0)
        return Measured(
            wall,
            usage.ru_utime,
            usage.ru_stime,
            usage.ru_maxrss / 1024,
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )


def proc_cpu(pid: int) -> float:
    """CPU seconds (user+sys) a live process has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Server:
    """A server in its own process whose first stdout line is its URL; stopped by its pid."""

    def __init__(self, argv: Sequence[str], cwd: Path | str = ROOT, log: Path | None = None):
        self.argv = list(argv)
        self.cwd = cwd
        self.url = ""
        self._log = log
        self._proc: subprocess.Popen[bytes] | None = None
        self._folder: str | None = None

    def __enter__(self) -> Server:
        if self._log is None:
            self._folder = tempfile.mkdtemp(prefix="passk-bench-server-")
            self._log = Path(self._folder) / "server.out"
        with self._log.open("wb") as out:
            self._proc = subprocess.Popen(
                self.argv, cwd=self.cwd, stdout=out, stderr=subprocess.STDOUT
            )
        give_up = time.monotonic() + 15
        while True:
            text = self._log.read_text(errors="replace")
            if text.endswith("\n") or "\n" in text:
                match = re.search(r"https?://\S+", text)
                if match:
                    self.url = match.group(0)
                    return self
            if self._proc.poll() is not None or time.monotonic() > give_up:
                self.__exit__()
                raise RuntimeError(f"server {self.argv} did not start: {text[-500:]}")
            time.sleep(0.05)

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    def cpu(self) -> float:
        return proc_cpu(self.pid)

    def output(self) -> str:
        return self._log.read_text(errors="replace") if self._log else ""

    def __exit__(self, *exc: object) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()  # by pid
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)


def stack(latency: float, *extra: str) -> Server:
    """The test stack (tests/support/stack_server.py) in its own process, Turns of ``latency`` s."""
    argv = [PYTHON, "-m", "tests.support.stack_server", "--port", "0", "--latency", str(latency)]
    return Server([*argv, *extra])


def stack_stats(url: str) -> dict:
    """The test stack's counters (GET /_stats?summary=1)."""
    import urllib.request

    with urllib.request.urlopen(f"{url}/_stats?summary=1", timeout=5) as answer:
        return json.loads(answer.read())


def run_request(prefix: str, i: int) -> tuple[bytes, dict[str, str]]:
    """The body and headers of the ``i``-th POST /v1/runs of a bare client's run ``prefix``."""
    body = {
        "agent": "demo",
        "version": 1,
        "input": f"answer {i}",
        "metadata": {"evaluation": prefix, "case": f"case-{i}", "attempt": 1},
    }
    headers = {"Idempotency-Key": f"{prefix}/{i}", "Content-Type": "application/json"}
    return json.dumps(body).encode(), headers


def write_cases(path: Path, count: int) -> Path:
    """``count`` cases with no check (run with --completion-only); the stack echoes the input."""
    with path.open("w") as out:
        for i in range(count):
            out.write(json.dumps({"name": f"case-{i:05d}", "input": f"answer {i}"}) + "\n")
    return path


def headless_argv(url: str, cases: Path, attempts: int, concurrency: int) -> list[str]:
    """The headless CLI on the test stack's agent ``demo`` version 1, no check."""
    return [
        PASSK, "--headless", "--agent", "demo", "--version", "1", "--cases", str(cases),
        "--attempts", str(attempts), "--concurrency", str(concurrency), "--completion-only",
        "--timeout", "120", "--stack", url,
    ]  # fmt: skip


def face_argv(face: str, url: str, cases: Path, attempts: int, concurrency: int) -> list[str]:
    """``headless_argv``, or the same flags given to the app via bench/app_run.py (face "app")."""
    argv = headless_argv(url, cases, attempts, concurrency)
    if face == "app":
        return [PYTHON, str(ROOT / "bench" / "app_run.py"), *argv[2:]]  # drop passk-tui --headless
    return argv


def fresh_env(data_dir: Path) -> dict[str, str]:
    """The environment for a child passk-tui: its own empty store, no user config."""
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        env[name] = str(data_dir / name.lower())
    env["PASSK_DATA_DIR"] = str(data_dir / "store")
    env.pop("PASSK_STACK", None)
    env.pop("PASSK_KEY", None)
    # A user's Python caches bytecode: without it every run compiles the changed modules
    # again (a fixed cost the app, with more modules, paid more of).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def spread(values: Sequence[float], fmt: str = "{:.2f}") -> str:
    """``median (min-max)`` of repeated measurements."""
    med = statistics.median(values)
    if len(values) == 1:
        return fmt.format(med)
    return f"{fmt.format(med)} ({fmt.format(min(values))}-{fmt.format(max(values))})"
