"""Attempts over a real two-node Ray cluster: spread over both nodes, each node recorded,
figures exact; a worker killed mid-run loses nothing and counts each attempt once; a killed
passk-tui resumes; a sandboxed attempt runs on a node."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.special import comb

from tests.ray.cluster import Cluster, command, project_run
from tests.support.conversing import tool_model, write_tool_agent
from tests.support.fake_openai import FakeOpenAI

pytestmark = pytest.mark.ray

CASES = ["alpha", "beta", "gamma", "delta"]
ATTEMPTS = 6
#: The agent is wrong on every third attempt: 4 of 6 pass in every case.
AGENT = """\
import os, pathlib, sys, time
sys.stdin.read()
mark = f"{os.environ['PASSK_NODE']} {os.environ['PASSK_CASE']} {os.environ['PASSK_ATTEMPT']}"
(pathlib.Path(MARKS) / mark).touch()  # where each attempt is, as it starts
time.sleep(float(os.environ.get("AGENT_SECONDS", "0.5")))
print("no" if int(os.environ["PASSK_ATTEMPT"]) % 3 == 0 else "ok")
"""


def write_project(folder: Path, seconds: float, sandbox: bool = False) -> Path:
    """The agents file, cases and agent; the folder where the agent marks its attempts."""
    marks = folder.parent / "marks"
    marks.mkdir()
    if sandbox:
        (folder / "agent.sh").write_text("cat >/dev/null; sleep 0.2; echo ok\n")
        argv, extra = '["sh", "agent.sh"]', "sandbox = true\n"
    else:
        agent = AGENT.replace('"0.5"', f'"{seconds}"').replace("MARKS", repr(str(marks)))
        (folder / "agent.py").write_text(agent)
        argv, extra = f'[{json.dumps(sys.executable)}, "agent.py"]', ""
    (folder / "agents.toml").write_text(f"[agents.a.versions.1]\ncommand = {argv}\n{extra}")
    cases = "".join(
        f'[[cases]]\nname = "{name}"\ninput = "{name}"\ncheck = {{ equals = "ok" }}\n'
        for name in CASES
    )
    (folder / "cases.toml").write_text(cases)
    return marks


def passk(cluster: Cluster, folder: Path, data: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        project_run(
            folder,
            "--concurrency",
            "2",
            "--executor",
            "ray",
            "--ray-address",
            cluster.address,
            *args,
        ),
        env={**cluster.env, "PASSK_DATA_DIR": str(data)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finished(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=900)
    return process.returncode, out, err


def test_attempts_spread_over_both_nodes_with_exact_figures(
    cluster: Cluster, project: Path, tmp_path: Path
) -> None:
    write_project(project, 0.5)
    export = tmp_path / "out.json"
    code, out, err = finished(
        passk(cluster, project, tmp_path / "data", "--attempts", str(ATTEMPTS), "--k", "2",
              "--export", str(export))
    )  # fmt: skip
    assert code == 0, err
    document = json.loads(export.read_text())
    attempts = document["attempts"]
    assert len(attempts) == len(CASES) * ATTEMPTS
    assert set(Counter(a["node"] for a in attempts)) == set(cluster.nodes)  # both were used
    assert document["evaluation"]["reruns"] == 0
    expected = 1 - Fraction(int(comb(2, 2, exact=True)), int(comb(6, 2, exact=True)))
    for case in document["cases"]:
        assert (case["figures"]["passed"], case["figures"]["wrong"]) == (4, 2)
        assert Fraction(case["figures"]["exact"]["pass_at_k"]) == expected  # 14/15
    assert "alpha  4/6     2      0        0.67    0.93    no" in out


def test_a_killed_worker_loses_nothing_and_counts_each_attempt_once(
    cluster: Cluster, project: Path, tmp_path: Path
) -> None:
    doomed = cluster.add_worker()
    marks = write_project(project, 3.0)
    data, export = tmp_path / "data", tmp_path / "out.json"
    run = passk(cluster, project, data, "--attempts", "2", "--k", "1", "--export", str(export))
    # As soon as an attempt starts on the doomed node (it takes 3 s), the node dies under it.
    _wait_until(lambda: any(mark.name.startswith(doomed) for mark in marks.iterdir()), run)
    cluster.kill(doomed)
    code, _, err = finished(run)
    assert code == 0, err
    document = json.loads(export.read_text())
    attempts = document["attempts"]
    said = f"passk-tui: reruns: {document['evaluation']['reruns']} attempt"
    assert said in err
    assert sorted((a["case"], a["attempt"]) for a in attempts) == sorted(
        (case, n) for case in CASES for n in (1, 2)
    )
    assert all(a["outcome"] in ("passed", "wrong") for a in attempts), attempts
    reruns = document["evaluation"]["reruns"]
    assert reruns >= 1
    assert reruns == sum(a["retries"] for a in attempts)
    assert all(a["node"] != doomed for a in attempts if a["retries"])


def test_kill_9_of_passk_tui_then_resume_runs_only_what_is_missing(
    cluster: Cluster, project: Path, tmp_path: Path
) -> None:
    write_project(project, 1.0)
    data = tmp_path / "data"
    run = passk(cluster, project, data, "--attempts", "3", "--k", "1")
    _wait_until(lambda: sum(_nodes_stored(data).values()) >= 3, run)
    run.send_signal(signal.SIGKILL)
    run.wait()
    kept = sum(_nodes_stored(data).values())
    export = tmp_path / "out.json"
    # No --executor again: the evaluation ran on the cluster, so its resume does.
    resume = [*command("--resume", "last", "--export", str(export))]
    env = {**cluster.env, "PASSK_DATA_DIR": str(data)}
    ran = subprocess.run(resume, env=env, capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stderr
    attempts = json.loads(export.read_text())["attempts"]
    assert len(attempts) == len(CASES) * 3  # each once: the kept ones were not run again
    assert kept >= 3
    assert {a["node"] for a in attempts} <= set(cluster.nodes)  # all on the cluster


def test_a_sandboxed_attempt_runs_on_a_node(
    cluster: Cluster, project: Path, tmp_path: Path
) -> None:
    write_project(project, 0.2, sandbox=True)
    export = tmp_path / "out.json"
    code, _, err = finished(
        passk(cluster, project, tmp_path / "data", "--attempts", "2", "--k", "1",
              "--export", str(export))
    )  # fmt: skip
    assert code == 0, err
    attempts = json.loads(export.read_text())["attempts"]
    assert {a["outcome"] for a in attempts} == {"passed"}
    assert {a["node"] for a in attempts} <= set(cluster.nodes)


#: A `command` check that marks the node it ran on, beside the cases file (Ray ships it).
CHECK = """\
import os, pathlib, sys
from expected import ANSWER
(pathlib.Path(MARKS) / f"check {os.environ['PASSK_NODE']} {os.getpid()}").touch()
sys.exit(0 if sys.stdin.read().strip() == ANSWER else 1)
"""


def test_command_checks_run_on_the_cluster_from_the_cases_folder(
    cluster: Cluster, project: Path, tmp_path: Path
) -> None:
    marks = write_project(project, 0.2)
    checks = tmp_path / "cases"  # apart from the agents folder: shipped on its own
    checks.mkdir()
    (checks / "check.py").write_text(CHECK.replace("MARKS", repr(str(marks))))
    (checks / "expected.py").write_text("ANSWER = 'ok'\n")
    check = f'check = {{ command = [{json.dumps(sys.executable)}, "check.py"] }}'
    (project / "cases.toml").unlink()
    (checks / "cases.toml").write_text(
        "".join(f'[[cases]]\nname = "{name}"\ninput = "{name}"\n{check}\n' for name in CASES)
    )
    export = tmp_path / "out.json"
    args = ["--attempts", "3", "--k", "1", "--export", str(export)]
    command = project_run(project, "--concurrency", "2", "--executor", "ray", *args)
    command[command.index("--cases") + 1] = str(checks / "cases.toml")
    ran = subprocess.run(
        command,
        env={
            **cluster.env,
            "PASSK_DATA_DIR": str(tmp_path / "data"),
            "RAY_ADDRESS": cluster.address,
        },
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert ran.returncode == 0, ran.stderr
    attempts = json.loads(export.read_text())["attempts"]
    assert Counter(a["outcome"] for a in attempts) == {"passed": 8, "wrong": 4}
    checked = [mark.name.split()[1] for mark in marks.iterdir() if mark.name.startswith("check ")]
    assert len(checked) == len(attempts)  # every check ran as a task, none here
    assert set(checked) <= set(cluster.nodes)


def _nodes_stored(data: Path) -> dict[str, int]:
    """Finished attempts per node, read from the store as another process writes it."""
    try:
        with sqlite3.connect(f"file:{data / 'passk.db'}?mode=ro", uri=True, timeout=10) as db:
            rows = db.execute("SELECT node, count(*) FROM attempts GROUP BY node").fetchall()
    except sqlite3.OperationalError:
        return {}  # not made yet
    return {node: count for node, count in rows if node is not None}


def _wait_until(condition, run: subprocess.Popen[str], limit: float = 600) -> None:
    give_up = time.monotonic() + limit
    while not condition():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < give_up, "the run made no progress"
        time.sleep(0.2)


#: The refund tool, saying which node it ran on (a Ray task's program is told PASSK_NODE).
NODE_TOOL = """\
import json, os, sys
args = json.load(sys.stdin)
print(f"refunded order {args['order_id']} on {os.environ.get('PASSK_NODE', 'here')}")
"""


async def test_an_openai_versions_tools_run_on_the_cluster(
    cluster: Cluster, endpoint: FakeOpenAI, project: Path, tmp_path: Path
) -> None:
    """The model is asked from here; each tool call it makes is a task on a node."""
    endpoint.respond = tool_model
    write_tool_agent(project, endpoint.base_url)
    (project / "refund.py").write_text(NODE_TOOL)
    (project / "cases.toml").write_text(
        '[[cases]]\nname = "refund"\ninput = "Please refund order 1234."\n'
        'check = { contains = "refunded order 1234" }\n'
    )
    export = tmp_path / "out.json"
    args = ["--agents", str(project / "agents.toml"), "--agent", "llm", "--version", "1"]
    args += ["--cases", str(project / "cases.toml"), "--attempts", "4", "--k", "1"]
    args += ["--executor", "ray", "--concurrency", "2", "--export", str(export)]
    env = {**cluster.env, "PASSK_DATA_DIR": str(tmp_path / "data"), "RAY_ADDRESS": cluster.address}
    process = await asyncio.create_subprocess_exec(
        *command(*args), cwd=project, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), 900)
    assert process.returncode == 0, err.decode()
    attempts = json.loads(export.read_text())["attempts"]
    said = [a["transcript"]["messages"][2]["content"] for a in attempts]
    assert len(said) == 4 and all(text.startswith("refunded order 1234 on ") for text in said)
    assert {text.rsplit(" ", 1)[1] for text in said} <= set(cluster.nodes)  # none ran here
