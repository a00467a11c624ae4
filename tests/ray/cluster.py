"""A real Ray cluster on this machine for the tests: a head and worker nodes started with
`ray start`, each in its own process group, stopped by its id."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import ROOT
from tests.support.cli import command

RAY = str(Path(sys.executable).with_name("ray"))
#: Seconds a node may take to join on a loaded machine (tens, at a load of 20 on 2 cores).
JOIN_LIMIT = 240.0


@dataclass
class Cluster:
    """The head's address, the environment every process of the test shares, the nodes."""

    address: str
    env: dict[str, str]
    temp: Path
    """Ray's own files (sessions, logs, sockets), removed with the cluster."""
    nodes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    """Node id -> its `ray start --block` process (the leader of its process group)."""

    def add_worker(self) -> str:
        """Start a worker node (1 CPU) and return its node id once the cluster lists it."""
        before = set(alive_nodes(self))
        argv = [RAY, "start", f"--address={self.address}", *_NODE_FLAGS, *_own_ports()]
        process = _start(argv, self.env, self.temp)
        node = _wait_for_new_node(self, before, process)
        self.nodes[node] = process
        return node

    def kill(self, node: str) -> None:
        """kill -9 a node's whole process group: the node dies as a machine would."""
        process = self.nodes.pop(node)
        _stop_group(process, signal.SIGKILL)

    def stop(self) -> None:
        for process in self.nodes.values():
            _stop_group(process, signal.SIGTERM)
        self.nodes.clear()
        shutil.rmtree(self.temp, ignore_errors=True)


_NODE_FLAGS = ["--num-cpus=1", "--disable-usage-stats", "--block"]


def _free_port() -> int:
    """A port free now and never handed out before: the kernel may give a port it just
    released again, and Ray refuses two servers on one port (a run saw the GCS's port given
    to the dashboard agent too)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port: int = probe.getsockname()[1]
        if port not in _GIVEN:
            _GIVEN.add(port)
            return port


#: The ports ``_free_port`` handed out in this process.
_GIVEN: set[int] = set()


def _own_ports() -> list[str]:
    """A free port for each of a node's servers that Ray would otherwise put on a fixed
    default (the dashboard agent on 52365, the client server on 10001...): another Ray on this
    machine (a second test session, a developer's own cluster) then cannot make `ray start`
    fail by holding them."""
    names = ("dashboard-agent-listen", "dashboard-agent-grpc", "metrics-export")
    names += ("runtime-env-agent", "node-manager", "object-manager")
    return [f"--{name}-port={_free_port()}" for name in names]


def project_run(folder: Path, *args: str) -> list[str]:
    """passk-tui on agent 'a' version 1 of ``folder``'s agents.toml and cases.toml, headless."""
    agents, cases = str(folder / "agents.toml"), str(folder / "cases.toml")
    return command("--agents", agents, "--agent", "a", "--version", "1", "--cases", cases, *args)


def start_cluster(home: Path) -> Cluster:
    """A head node of 1 CPU on a free port, its state in a private temp dir and $HOME."""
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit
    env = {
        **os.environ,
        "HOME": str(home),  # Ray writes ~/.ray: never the user's
        "RAY_AUTH_MODE": "disabled",  # a test cluster on loopback, no token to hand round
        "PYTHONPATH": str(ROOT),  # the workers import passk_tui from this tree
        "RAY_ADDRESS": "",
    }
    cluster = Cluster(f"127.0.0.1:{port}", env, Path(temp))
    head = [RAY, "start", "--head", f"--port={port}", f"--temp-dir={temp}"]
    head += ["--include-dashboard=false", f"--ray-client-server-port={_free_port()}"]
    process = _start([*head, *_NODE_FLAGS, *_own_ports()], env, Path(temp))
    cluster.nodes[_wait_for_new_node(cluster, set(), process)] = process
    return cluster


def alive_nodes(cluster: Cluster) -> list[str]:
    """The ids of the nodes the cluster says are alive (`ray list nodes` would need the
    dashboard; `ray status` prints them as node_<id>)."""
    status = subprocess.run(
        [RAY, "status", f"--address={cluster.address}"],
        capture_output=True,
        text=True,
        env=cluster.env,
        timeout=120,
    )
    active = status.stdout.split("Active:", 1)[-1].split("Pending:", 1)[0]
    return [word.removeprefix("node_") for word in active.split() if word.startswith("node_")]


def _start(argv: list[str], env: dict[str, str], temp: Path) -> subprocess.Popen[bytes]:
    """``ray start`` in its own process group, what it says kept in ``temp`` for a failure."""
    log = temp / f"ray-start-{time.monotonic_ns()}.log"
    with log.open("wb") as said:
        process = subprocess.Popen(
            argv,
            env=env,
            stdout=said,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped by its id, with its children
        )
    _LOGS[process.pid] = log
    return process


#: Each `ray start`'s output, by its pid: the last lines name why one ended.
_LOGS: dict[int, Path] = {}


def _wait_for_new_node(cluster: Cluster, before: set[str], process: subprocess.Popen[bytes]) -> str:
    give_up = time.monotonic() + JOIN_LIMIT
    while time.monotonic() < give_up:
        if process.poll() is not None:
            said = _LOGS[process.pid].read_text(errors="replace").strip().splitlines()[-5:]
            raise AssertionError(f"ray start ended with {process.returncode}: {said}")
        new = set(alive_nodes(cluster)) - before
        if new:
            return new.pop()
        time.sleep(2)
    _stop_group(process, signal.SIGKILL)
    raise AssertionError(f"no new node joined within {JOIN_LIMIT:g} s")


def _stop_group(process: subprocess.Popen[bytes], how: signal.Signals) -> None:
    try:
        os.killpg(process.pid, how)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    # What it started (raylet, workers, the GCS) shares its group: none may linger.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
