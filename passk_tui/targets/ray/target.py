"""A `command` agent whose attempts run as Ray tasks, on whichever node has a free CPU.

passk-tui stays the one controller: it decides the attempts, each attempt is one task,
and what the task gives back is stored before it is shown, as for a local attempt. An
attempt whose node died (the worker or the whole node lost) is run again on another,
and counted once; each such rerun is one of the attempt's ``retries``.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import RunError
from passk_tui.targets.command import CommandTarget, attempt_env, stdin_bytes, turn_of
from passk_tui.targets.ray.task import Finished, run_attempt

if TYPE_CHECKING:
    from passk_tui.core.run.attempt_keys import PlannedAttempt
    from passk_tui.core.run.target import RetryNotice

#: How many times an attempt is run again after its node died, before it is errored.
MAX_RERUNS = 3
#: CPUs each attempt asks the cluster for.
CPUS = 1


class RayCommandTarget:
    """A `command` agent (``local``, as it would run here) run on a Ray cluster instead: the
    agents file's folder is each task's working directory; ``address`` None starts a Ray
    on this machine for the run."""

    def __init__(self, local: CommandTarget, *, address: str | None, cpus: float = CPUS) -> None:
        self.local = local
        self.definition = local.definition
        self.settings = None if local.sandbox is None else local.sandbox.settings
        self.address = address
        self.cpus = cpus
        self._task: Any = None

    def __repr__(self) -> str:
        return f"RayCommandTarget({self.local!r}, address={self.address!r})"

    async def prepare(self) -> None:
        """The program checked as locally, then the cluster joined (RunError when it cannot be)."""
        await self.local.prepare()
        # On this thread: Ray sets its signal handlers only from the main thread. Once, before
        # any attempt, so that the seconds it takes hold nothing up.
        self._join()

    def _join(self) -> None:
        import ray

        join(self.address, self.local.cwd)
        self._task = ray.remote(run_attempt)

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """One task per run of the attempt; a node's death runs it again elsewhere."""
        from ray import exceptions

        data = stdin_bytes(attempt.case.input)
        env = attempt_env(attempt, self.local.evaluation_id)
        for _ in range(MAX_RERUNS + 1):
            left = max(0.001, deadline - asyncio.get_running_loop().time())
            options = task_options(self.cpus)
            args = (self.local.argv, data, env, self.settings, left)
            try:
                finished = await run_task(self._task, options, args)
            except exceptions.RayError as exc:
                return Turn("failed", error=f"ray: {type(exc).__name__}: {exc}"[:500])
            if isinstance(finished, str):
                notify(f"node died: {finished}", 0.0)
                continue
            if finished.problem is not None:
                status = "timed_out" if finished.problem.startswith("still") else "failed"
                return Turn(status, error=finished.problem, node=finished.node)
            turn = turn_of(finished.code, finished.stdout, finished.stderr, finished.limit)
            return Turn(turn.status, turn.output, turn.error, node=finished.node)
        return Turn("failed", error=f"ray: its node died {MAX_RERUNS + 1} times")

    async def aclose(self) -> None:
        """Nothing runs here to kill; the cluster is left as it was joined."""


def join(address: str | None, working_dir: Path | None) -> None:
    """Join the cluster at ``address`` (None: a Ray started here) once per process, with
    ``working_dir`` shipped as every task's (RunError when it cannot be joined, or when Ray
    is gone since the evaluation that a resume continues ran on it)."""
    try:
        import ray
    except ImportError:
        raise RunError(
            "--executor ray: Ray is not installed: pip install 'passk-tui[ray]'"
        ) from None

    if ray.is_initialized():
        return
    try:
        ray.init(
            address=address,
            runtime_env={} if working_dir is None else {"working_dir": str(working_dir)},
            log_to_driver=False,
            logging_level=logging.ERROR,
            configure_logging=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "a Ray started here"
        raise RunError(f"--executor ray: cannot join {where}: {exc}") from None


def task_options(cpus: float, **more: Any) -> dict[str, Any]:
    """How each task asks the cluster: its CPUs, no retry of Ray's own (a rerun is ours, and
    counted), SPREAD over every node with a free CPU, not packed onto the controller's first."""
    return {"num_cpus": cpus, "max_retries": 0, "scheduling_strategy": "SPREAD", **more}


async def run_task(task: Any, options: dict[str, Any], args: tuple[Any, ...]) -> Finished | str:
    """One run of the task: what it gave, or why its node was lost (to run it again); other
    RayErrors propagate. Cancelled, the task is stopped too."""
    from ray import exceptions

    lost = (exceptions.NodeDiedError, exceptions.WorkerCrashedError, exceptions.ObjectLostError)
    ref = task.options(**options).remote(*args)
    try:
        finished: Finished = await ref
    except asyncio.CancelledError:
        _cancel(ref)
        raise
    except lost as exc:
        return type(exc).__name__
    return finished


def _cancel(ref: Any) -> None:
    """Stop the task (its worker, and with it the program's sandbox) when the attempt ends."""
    import ray

    ray.cancel(ref, force=True)
