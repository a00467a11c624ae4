"""A `command` agent whose attempts run as Ray tasks, on whichever node has a free CPU.

passk-tui stays the one controller: it decides the attempts, each attempt is one task,
and what the task gives back is stored before it is shown, as for a local attempt. An
attempt whose node died (the worker or the whole node lost) is run again on another,
and counted once; each such rerun is one of the attempt's ``retries``.
"""

from __future__ import annotations

import asyncio
import logging
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

        if not ray.is_initialized():
            try:
                ray.init(
                    address=self.address,
                    runtime_env={"working_dir": str(self.local.cwd)},
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                    configure_logging=False,
                )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.address or "a Ray started here"
                raise RunError(f"--executor ray: cannot join {where}: {exc}") from None
        self._task = ray.remote(run_attempt)

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """One task per run of the attempt; a node's death runs it again elsewhere."""
        from ray import exceptions

        lost = (exceptions.NodeDiedError, exceptions.WorkerCrashedError, exceptions.ObjectLostError)
        data = stdin_bytes(attempt.case.input)
        env = attempt_env(attempt, self.local.evaluation_id)
        for _ in range(MAX_RERUNS + 1):
            left = max(0.001, deadline - asyncio.get_running_loop().time())
            # SPREAD: over every node with a free CPU, not packed onto the controller's first.
            options = {"num_cpus": self.cpus, "max_retries": 0, "scheduling_strategy": "SPREAD"}
            ref = self._task.options(**options).remote(
                self.local.argv, data, env, self.settings, left
            )
            try:
                finished: Finished = await ref
            except asyncio.CancelledError:
                _cancel(ref)
                raise
            except lost as exc:
                notify(f"node died: {type(exc).__name__}", 0.0)
                continue
            except exceptions.RayError as exc:
                return Turn("failed", error=f"ray: {type(exc).__name__}: {exc}"[:500])
            if finished.problem is not None:
                status = "timed_out" if finished.problem.startswith("still") else "failed"
                return Turn(status, error=finished.problem, node=finished.node)
            turn = turn_of(finished.code, finished.stdout, finished.stderr, finished.limit)
            return Turn(turn.status, turn.output, turn.error, node=finished.node)
        return Turn("failed", error=f"ray: its node died {MAX_RERUNS + 1} times")

    async def aclose(self) -> None:
        """Nothing runs here to kill; the cluster is left as it was joined."""


def _cancel(ref: Any) -> None:
    """Stop the task (its worker, and with it the program's sandbox) when the attempt ends."""
    import ray

    ray.cancel(ref, force=True)
