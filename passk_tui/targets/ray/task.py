"""What a Ray worker does for one attempt: run the agent's program where the task landed.

Imported on the worker (passk-tui must be installed on every node, as Ray needs of any
task's code). It runs in the task's working directory, the agents file's folder as Ray
shipped it, exactly as an attempt runs here: the same program runner, the same sandbox.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from passk_tui.core.inputs.program import run_program
from passk_tui.core.sandbox.room import Sandbox
from passk_tui.core.sandbox.settings import SandboxSettings
from passk_tui.targets.ray.shipped import unpacked


@dataclass(frozen=True, slots=True)
class Finished:
    """How the program ended on the node, sent back to the controller (pickled by Ray)."""

    node: str
    code: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    limit: str | None = None
    """The sandbox limit it hit, in the sandbox's words."""
    problem: str | None = None
    """Why it could not start, or that it ran past ``seconds``; then nothing else is set."""


def run_attempt(
    argv: Sequence[str],
    stdin: bytes,
    env: Mapping[str, str],
    sandbox: SandboxSettings | None,
    seconds: float,
    folder: Path | None = None,
) -> Finished:
    """The Ray task's body: the program run once in ``folder`` (by default the working
    directory Ray shipped), within ``seconds``."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    folder = folder or Path.cwd()
    env = {**env, "PASSK_NODE": node}  # the program may log where it ran

    async def once() -> Finished:
        if sandbox is None:
            code, stdout, stderr = await run_program(argv, folder, stdin, None, env)
            return Finished(node, code, stdout, stderr)
        ended = await Sandbox(sandbox, folder, argv[0]).run(argv, stdin, seconds, None, env)
        return Finished(node, ended.code, ended.stdout, ended.stderr, ended.limit)

    try:
        return asyncio.run(asyncio.wait_for(once(), seconds))
    except TimeoutError:
        return Finished(node, problem=f"still running after {seconds:g} s on its node")
    except OSError as exc:
        return Finished(node, problem=f"cannot start {argv[0]!r}: {exc.strerror or exc}")


def run_check(
    archive: bytes,
    digest: str,
    argv: Sequence[str],
    stdin: bytes,
    sandbox: SandboxSettings | None,
    seconds: float,
) -> Finished:
    """A `command` check's task: its program run in its folder, unpacked on this node."""
    return run_attempt(argv, stdin, {}, sandbox, seconds, unpacked(archive, digest))
