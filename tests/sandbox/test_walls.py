"""The sandbox attacked: each probe (tests/sandbox/probe.py) tries a wall from a `command`
agent and from a `command` check, sandboxed and not. Unsandboxed, every probe gets through,
which proves each wall held is the sandbox's and not the machine's."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from passk_tui.core.attempt import Turn, Verdict
from passk_tui.core.checks.command import CommandCheck
from passk_tui.core.sandbox import room
from passk_tui.core.sandbox.bwrap import Layout, bwrap_argv
from passk_tui.core.sandbox.limits import limit_hit
from passk_tui.core.sandbox.settings import parse_sandbox
from passk_tui.targets.command import CommandTarget
from tests.support.processes import gone

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")

PY = sys.executable
PROBE = Path(__file__).with_name("probe.py")
#: Small limits, so that the probes hit them quickly; the probes try twice as much.
WALLS = {"processes": 32, "memory_mb": 1024, "cpu_seconds": 2}
HOST_PROCESSES = 2 * WALLS["processes"]


@dataclass
class Scene:
    """What the probes aim at: a folder holding them, a listener, a host process, outside."""

    folder: Path
    outside: Path
    mark: str
    port: int


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    folder = tmp_path / "agents"
    folder.mkdir()
    shutil.copy(PROBE, folder / "probe.py")
    # Outside /tmp (which a sandbox hides anyway): only the read-only host stops a write here.
    outside = Path(tempfile.mkdtemp(prefix="passk-outside-", dir="/var/tmp"))
    (folder / "escape").symlink_to(outside)
    mark = f"passk-probe-{uuid.uuid4().hex}"
    listener = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=_accept_all, args=(listener,), daemon=True).start()
    marker = subprocess.Popen([PY, "-c", "import time; time.sleep(120)", f"{mark}-host"])
    monkeypatch.setenv("PROBE_PORT", str(listener.getsockname()[1]))
    monkeypatch.setenv("PROBE_MARK", mark)
    monkeypatch.setenv("PROBE_COUNT", str(HOST_PROCESSES))
    try:
        yield Scene(folder, outside, mark, listener.getsockname()[1])
    finally:
        listener.close()
        marker.kill()
        marker.wait()
        for pid in _processes_marked(f"{mark}-left"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(outside)


def _accept_all(listener: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while True:
            listener.accept()[0].close()


def _processes_marked(mark: str) -> list[int]:
    """Host processes whose command line holds ``mark``."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and mark.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


async def as_agent(scene: Scene, probe: str, sandboxed: bool) -> tuple[str, str]:
    """(outcome, what it said): passed when the wall held, wrong when breached, else errored."""
    sandbox = parse_sandbox(dict(WALLS), "agents.toml", scene.folder) if sandboxed else None
    target = CommandTarget([PY, "probe.py"], scene.folder, sandbox=sandbox)
    planned: Any = SimpleNamespace(case=SimpleNamespace(input=probe, name="c"), attempt=1)
    loop = asyncio.get_running_loop()
    try:
        turn: Turn = await target.execute(planned, loop.time() + 60, _no_retry)
    finally:
        await target.aclose()
    if turn.status == "completed":
        return "passed", turn.output
    if turn.error and turn.error.startswith("exit 3: "):
        return "wrong", turn.error
    return "errored", turn.error or ""


async def as_check(scene: Scene, probe: str, sandboxed: bool) -> tuple[str, str]:
    """The same probe as the program of a `command` check, the probe's name as the answer."""
    spec = {"command": [PY, "probe.py"], "sandbox": dict(WALLS) if sandboxed else False}
    check = CommandCheck(spec, "cases.toml: case 'c': check", scene.folder)
    verdict: Verdict = await check.verdict(probe, asyncio.get_running_loop().time() + 60)
    if verdict.errored:
        return "errored", verdict.reason or ""
    return ("passed" if verdict.passed else "wrong"), verdict.reason or ""


def _no_retry(reason: str, delay: float) -> None:
    raise AssertionError(reason)


RUNNERS = {"agent": as_agent, "check": as_check}
both = pytest.mark.parametrize("runner", list(RUNNERS))


@both
@pytest.mark.parametrize("probe", ["loopback", "proc", "fork", "memory"])
async def test_the_probe_gets_through_only_without_the_sandbox(
    scene: Scene, runner: str, probe: str
) -> None:
    outcome, said = await RUNNERS[runner](scene, probe, False)
    assert outcome == "wrong" and "breached" in said, said
    outcome, said = await RUNNERS[runner](scene, probe, True)
    assert outcome != "wrong", said
    if probe == "fork":
        assert (outcome, said.split(":")[:2]) == ("errored", ["sandbox", " process limit"])
    elif probe == "memory":
        assert (outcome, said.split(":")[:2]) == ("errored", ["sandbox", " memory limit"])
    else:
        assert outcome == "passed", said


@both
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
@pytest.mark.parametrize("probe", ["fork", "proc", "home"])
async def test_bwrap_run_as_root_holds_the_same_walls(
    scene: Scene, runner: str, probe: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made by root, bwrap runs as nobody; where nobody cannot reach what it binds, bwrap
    runs as root and makes the program nobody itself: the walls are the same."""
    monkeypatch.setattr(room, "others_reach", lambda paths: False)
    outcome, said = await RUNNERS[runner](scene, probe, True)
    if probe == "fork":
        assert (outcome, said.split(":")[:2]) == ("errored", ["sandbox", " process limit"])
    else:
        assert outcome == "passed", said


@both
async def test_home_is_empty_but_for_the_program_itself(scene: Scene, runner: str) -> None:
    outcome, said = await RUNNERS[runner](scene, "home", False)
    assert outcome == "wrong" and "breached: read" in said, said
    outcome, said = await RUNNERS[runner](scene, "home", True)
    assert outcome == "passed", said
    if runner == "agent":
        # All it may see of $HOME is the interpreter's own install (read-only), if there.
        home = Path(os.path.expanduser("~"))
        python = Path(os.path.realpath(PY)).parents[1]
        allowed = {python.relative_to(home).parts[0]} if python.is_relative_to(home) else set()
        assert set(said.removeprefix("held: ").split()) <= allowed, said


@both
@pytest.mark.parametrize("probe", ["folder", "symlink"])
@pytest.mark.parametrize("writable", [[], ["."]])
async def test_no_write_reaches_the_folder_or_leaves_it_by_a_link(
    scene: Scene, runner: str, probe: str, writable: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(WALLS, "writable", writable)
    before = sorted(os.listdir(scene.folder)), sorted(os.listdir(scene.outside))
    outcome, said = await RUNNERS[runner](scene, probe, True)
    assert outcome == "passed", said
    assert (sorted(os.listdir(scene.folder)), sorted(os.listdir(scene.outside))) == before
    monkeypatch.delitem(WALLS, "writable")
    await RUNNERS[runner](scene, probe, False)
    changed = sorted(os.listdir(scene.folder)), sorted(os.listdir(scene.outside))
    assert changed != before  # the same probe on the host does write there


@both
async def test_nothing_it_starts_outlives_the_attempt(scene: Scene, runner: str) -> None:
    outcome, said = await RUNNERS[runner](scene, "left-running", True)
    assert outcome == "passed", said
    left = f"{scene.mark}-left"
    assert [pid for pid in _processes_marked(left) if not gone(pid)] == []
    await RUNNERS[runner](scene, "left-running", False)
    # On the host it does: seen once the loaded machine has got round to listing it.
    for _ in range(50):
        if [pid for pid in _processes_marked(left) if not gone(pid)]:
            break
        await asyncio.sleep(0.1)
    assert [pid for pid in _processes_marked(left) if not gone(pid)]


@both
async def test_cpu_time_past_the_limit_is_errored(
    scene: Scene, runner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(WALLS, "cpu_seconds", 1)
    outcome, said = await RUNNERS[runner](scene, "cpu", True)
    assert (outcome, said.split(":")[:2]) == ("errored", ["sandbox", " cpu limit"])


@both
async def test_the_hosts_service_sockets_are_out_of_reach(
    scene: Scene, runner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket in /run (where docker's and dbus's are): a read-only host does not stop a
    connect() to it, so /run is the sandbox's own."""
    if not os.access("/run", os.W_OK):
        pytest.skip("needs a writable /run to put a service socket in")
    path = Path("/run") / f"{scene.mark}.sock"
    with socket.socket(socket.AF_UNIX) as service:
        service.bind(str(path))
        service.listen()
        path.chmod(0o777)  # anyone may connect: only the sandbox's walls stand in the way
        monkeypatch.setenv("PROBE_UNIX", str(path))
        try:
            outcome, said = await RUNNERS[runner](scene, "unix", False)
            assert outcome == "wrong" and "breached" in said, said
            outcome, said = await RUNNERS[runner](scene, "unix", True)
            assert outcome == "passed", said
        finally:
            path.unlink()


async def test_network_true_reaches_the_host(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(WALLS, "network", True)
    outcome, said = await as_agent(scene, "loopback", True)
    assert outcome == "wrong" and "breached" in said


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("runuser"), reason="needs root")
def test_an_unprivileged_user_gets_the_same_walls() -> None:
    """The walls as a user without root builds them (bwrap makes the user namespace): run as
    nobody, with the shell (the test's Python may live where nobody cannot read)."""
    shell = (
        "cat /proc/1/cmdline | tr '\\0' ' '; echo; ls /tmp | wc -l; "
        "for i in $(seq 40); do sleep 5 & done; wait"
    )
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:  # where nobody may go
        Path(folder).chmod(0o755)
        layout = Layout(folder=Path(folder), copy=Path(folder), as_root=False, processes=16)
        sandboxed = bwrap_argv("bwrap", layout, ["sh", "-c", shell])
        ended = subprocess.run(
            ["runuser", "-u", "nobody", "--", *sandboxed],
            capture_output=True,
            text=True,
            timeout=60,
        )
    pid_one, in_tmp = ended.stdout.splitlines()[:2]
    assert pid_one.startswith("bwrap")  # its own PID namespace: pid 1 is bwrap's, not init
    assert in_tmp == "0"  # a private, empty /tmp (the host's has plenty)
    assert limit_hit(ended.returncode, ended.stderr.encode()) == "sandbox: process limit"
