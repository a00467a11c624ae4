"""`command` checks and tools run as Ray tasks (``--executor ray``), as the agent's attempts are.

A check runs code (often the answer's own) that may take as long as the agent did: on
the cluster it takes a node's CPU, not the controller's. Each check's task runs the
command as written in the cases file's folder, shipped to its node (shipped.py), sandboxed
when the check asks, and gives back how it ended; the verdict is reached here, as for a
check run here. A check whose node died is run again elsewhere, as an attempt is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from passk_tui.core.checks.kinds import command_checks
from passk_tui.core.run.cases import Case
from passk_tui.core.sandbox.room import Ended
from passk_tui.core.sandbox.settings import SandboxSettings
from passk_tui.targets.ray.shipped import TooLarge, packed
from passk_tui.targets.ray.target import CPUS, MAX_RERUNS, join, run_task, task_options
from passk_tui.targets.ray.task import run_check


class OnRay:
    """Runs a `command` check's or a tool's program as a Ray task on the cluster at ``address``
    (a tool call is a check's kind of task: a program in a shipped folder, on stdin)."""

    def __init__(self, address: str | None) -> None:
        self.address = address
        self._task: Any = None
        #: Each folder's zip in the object store and its digest, packed once.
        self._shipped: dict[Path, tuple[Any, str]] = {}

    def __repr__(self) -> str:
        return f"OnRay(address={self.address!r})"

    async def __call__(
        self,
        argv: Sequence[str],
        folder: Path,
        stdin: bytes,
        sandbox: SandboxSettings | None,
        seconds: float,
    ) -> Ended:
        import ray
        from ray import exceptions

        if self._task is None:
            join(self.address, None)  # joined already when the agent runs on Ray too
            self._task = ray.remote(run_check)
        if folder not in self._shipped:
            try:
                data, digest = packed(folder)
            except TooLarge as exc:
                raise OSError(0, str(exc)) from None
            self._shipped[folder] = (ray.put(data), digest)
        options = task_options(CPUS)
        args = (*self._shipped[folder], argv, stdin, sandbox, seconds)
        for _ in range(MAX_RERUNS + 1):
            try:
                finished = await run_task(self._task, options, args)
            except exceptions.RayError as exc:
                raise OSError(0, f"ray: {type(exc).__name__}: {exc}"[:500]) from None
            if isinstance(finished, str):
                continue  # its node died: run it again elsewhere
            if finished.problem is not None:
                if finished.problem.startswith("still"):
                    raise TimeoutError(finished.problem)
                raise OSError(0, finished.problem)
            return Ended(finished.code, finished.stdout, finished.stderr, finished.limit)
        raise OSError(0, f"ray: its node died {MAX_RERUNS + 1} times")


def place_checks(cases: Iterable[Case], address: str | None) -> None:
    """Every `command` check of ``cases`` run on the cluster at ``address`` from now on."""
    runner = OnRay(address)
    for case in cases:
        for check in command_checks(case.check):
            check.elsewhere = runner
