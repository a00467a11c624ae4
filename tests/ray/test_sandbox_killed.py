"""A Ray worker killed while its task's sandbox is being made leaves no sandbox process on the
node: the task force-cancelled (as passk-tui does when an attempt is cut short), or its worker
SIGKILLed (an OOM kill). Both nodes of the test cluster are this machine, so /proc shows them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ray.cluster import Cluster
from tests.sandbox.test_killed_mid_setup import _left
from tests.sandbox.test_walls import _processes_marked
from tests.support.processes import kill_quietly

pytestmark = [
    pytest.mark.ray,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap"),
]

#: Rounds, alternately force-cancelled and SIGKILLed, each a ms later after bwrap starts.
ROUNDS = 8
STEP = 0.001
#: Seconds a task may take to reach a node and start bwrap on a loaded machine.
START_LIMIT = 180.0

#: Runs the attempt's Ray task (sandboxed) on each "start" line of stdin; "cancel"
#: force-cancels it and "wait" waits for it (its worker killed); how it ended is said on stdout.
DRIVER = """
import json, sys
from pathlib import Path
import ray
from passk_tui.core.sandbox.settings import SandboxSettings
from passk_tui.targets.ray.task import run_attempt
ray.init(address=sys.argv[1], log_to_driver=False)
task = ray.remote(run_attempt).options(num_cpus=1, max_retries=0)
for line in sys.stdin:
    order = json.loads(line)
    if order["do"] == "start":
        ref = task.remote(order["argv"], b"", {}, SandboxSettings(), 120, Path(order["folder"]))
    elif order["do"] == "cancel":
        ray.cancel(ref, force=True)
    if order["do"] != "start":
        try:
            print("finished", ray.get(ref, timeout=300), flush=True)
        except Exception as exc:
            print(type(exc).__name__, flush=True)
"""


@pytest.fixture
def folder() -> Iterator[Path]:
    """The working folder, readable by nobody (whom bwrap runs as when root makes it)."""
    made = Path(tempfile.mkdtemp(prefix="passk-ray-killed-"))
    made.chmod(0o755)
    yield made
    shutil.rmtree(made)


def test_a_worker_killed_while_its_sandbox_is_made_leaves_nothing(
    cluster: Cluster, folder: Path
) -> None:
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, cluster.address],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=cluster.env,
        text=True,
    )
    assert driver.stdin is not None and driver.stdout is not None
    left: dict[int, list[int]] = {}
    try:
        for round_ in range(ROUNDS):
            mark = f"passk-ray-killed-{uuid.uuid4().hex}"
            argv = ["/bin/sh", "-c", "cat >/dev/null; sleep 600; exit", mark]
            try:
                _order(driver, {"do": "start", "argv": argv, "folder": str(folder)})
                bwrap = _bwrap_started(mark)
                time.sleep((round_ // 2) * STEP)
                if round_ % 2 == 0:
                    _order(driver, {"do": "cancel"})
                else:
                    os.kill(_worker_of(bwrap), signal.SIGKILL)
                    _order(driver, {"do": "wait"})
                # The task ends in error, or (Ray killing the worker's children first) gives
                # back a program killed by SIGKILL: either way its sandbox must be gone.
                driver.stdout.readline()
                found = _left(mark)
                if found:
                    left[round_] = found
            finally:
                kill_quietly(*_processes_marked(mark))
    finally:
        driver.kill()
        driver.wait()
    assert left == {}, f"{len(left)} of {ROUNDS} rounds left processes behind"


def _order(driver: subprocess.Popen[str], order: dict[str, object]) -> None:
    assert driver.stdin is not None
    driver.stdin.write(json.dumps(order) + "\n")
    driver.stdin.flush()


def _bwrap_started(mark: str) -> int:
    """The first process of the round's sandbox (bwrap, as it starts on the node)."""
    give_up = time.monotonic() + START_LIMIT
    while not (found := _processes_marked(mark)):
        assert time.monotonic() < give_up, "the task never started its sandbox"
    return min(found)


def _worker_of(pid: int) -> int:
    """The Ray worker above ``pid``: the highest ancestor named ray::... (a fork of the worker
    is named so too)."""
    worker = pid
    while (parent := _parent_of(pid)) > 1:
        pid = parent
        if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"ray::"):
            worker = pid
    return worker


def _parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0
