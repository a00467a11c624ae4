"""A local agent that is a program: input on stdin, answer on stdout, one process per attempt."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import RunError
from passk_tui.core.inputs.agent_definition import command_definition
from passk_tui.core.inputs.program import kill_and_reap, program_problem, run_program
from passk_tui.core.sandbox.room import Sandbox
from passk_tui.core.sandbox.settings import SandboxSettings

if TYPE_CHECKING:
    from passk_tui.core.run.attempt_keys import PlannedAttempt
    from passk_tui.core.run.target import RetryNotice

#: How much of stderr a failed attempt keeps: the end, where the reason usually is.
STDERR_TAIL = 500


def stdin_bytes(value: Any) -> bytes:
    """A case input as the agent reads it: a string as UTF-8 text, anything else as JSON."""
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


class CommandTarget:
    """Runs an argv per attempt in the agents file's folder, in its own process group.

    Exit 0 is a completed Turn whose output is stdout (one trailing newline
    removed); any other exit is a failed Turn carrying the tail of stderr.
    When the engine cancels an attempt (deadline or user), the whole process
    group is killed and the child reaped before ``CancelledError`` goes on. The program
    finds which attempt it makes in PASSK_CASE, PASSK_ATTEMPT and PASSK_EVALUATION, so it
    can log or seed per attempt. With ``sandbox`` settings it runs in a sandbox of its
    own per attempt, and a limit it hits fails the Turn with the sandbox's reason.
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        *,
        label: str = "",
        evaluation_id: str = "",
        sandbox: SandboxSettings | None = None,
    ) -> None:
        if not argv:
            raise ValueError("CommandTarget needs a non-empty argv")
        self.argv = tuple(argv)
        self.cwd = cwd
        self.label = label
        self.evaluation_id = evaluation_id
        self.definition = command_definition(self.argv, cwd)
        self.sandbox = None if sandbox is None else Sandbox(sandbox, cwd, self.argv[0])
        if sandbox is not None:
            self.definition["sandbox"] = sandbox.described()
        self._running: set[asyncio.subprocess.Process] = set()

    def __repr__(self) -> str:
        return f"CommandTarget(argv={list(self.argv)!r}, cwd={str(self.cwd)!r})"

    async def prepare(self) -> None:
        """A program that cannot start is no answer of the agent's: RunError (exit 3) at once."""
        problem = program_problem(self.argv[0], self.cwd)
        if problem:
            raise RunError(f"{self.label or 'command agent'}: program {problem}")

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """Run the program once on this attempt's input and map its exit to a Turn."""
        data, env = stdin_bytes(attempt.case.input), attempt_env(attempt, self.evaluation_id)
        limit: str | None = None
        try:
            if self.sandbox is None:
                code, stdout, stderr = await run_program(
                    self.argv, self.cwd, data, self._running, env
                )
            else:
                left = deadline - asyncio.get_running_loop().time()
                ended = await self.sandbox.run(self.argv, data, left, self._running, env)
                code, stdout, stderr, limit = ended.code, ended.stdout, ended.stderr, ended.limit
        except OSError as exc:
            return Turn("failed", error=f"cannot start {self.argv[0]!r}: {exc.strerror or exc}")
        return turn_of(code, stdout, stderr, limit)

    async def aclose(self) -> None:
        """Kill and reap any program still running (normally none: the engine cancels first)."""
        for proc in list(self._running):
            await kill_and_reap(proc)
        self._running.clear()


def attempt_env(attempt: PlannedAttempt, evaluation_id: str) -> dict[str, str]:
    """Which attempt a `command` agent is making, as its environment says it (the README lists
    these variables for agent authors)."""
    return {
        "PASSK_CASE": attempt.case.name,
        "PASSK_ATTEMPT": str(attempt.attempt),
        "PASSK_EVALUATION": evaluation_id,
    }


def turn_of(code: int | None, stdout: bytes, stderr: bytes, limit: str | None = None) -> Turn:
    """A program's exit as a Turn: exit 0 completed with stdout, anything else failed."""
    if code == 0:
        return Turn("completed", output=_answer(stdout))
    error = _exit_error(code, stderr)
    return Turn("failed", error=f"{limit}: {error}" if limit else error)


def _answer(stdout: bytes) -> str:
    """stdout as text with exactly one trailing newline (``\\n`` or ``\\r\\n``) removed."""
    text = stdout.decode("utf-8", errors="replace")
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text


def _exit_error(code: int | None, stderr: bytes) -> str:
    """``exit 3: <stderr tail>``, or ``killed by SIGSEGV: ...`` for a signal."""
    if code is not None and code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit {code}"
    tail = stderr.decode("utf-8", errors="replace").strip()[-STDERR_TAIL:]
    return f"{how}: {tail}" if tail else how
