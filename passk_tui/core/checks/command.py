"""The `command` check: a program judges the answer, bounded in time, leaving nothing behind."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Verdict
from passk_tui.core.checks.base import PASS, Check, raw_text, reads_transcript, tail
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import positive_seconds, storable_json, strings
from passk_tui.core.inputs.program import argv_problem, program_problem, run_program
from passk_tui.core.sandbox.room import Elsewhere, Ended, Sandbox
from passk_tui.core.sandbox.settings import parse_sandbox
from passk_tui.core.transcript import Transcript

#: Seconds a `command` check may run before it fails, unless its `timeout` says otherwise.
COMMAND_TIMEOUT = 60.0


class CommandCheck(Check):
    """A program judges the untrimmed answer on its stdin (with ``on = "transcript"``: the
    attempt's transcript as JSON, ``core/transcript.py``): exit 0 passes.

    Bounded by its own ``timeout`` and the attempt's deadline; past either, or when
    the attempt is cancelled, its whole process group is killed and reaped. With
    ``sandbox`` it runs sandboxed, and a limit it hits errors the attempt.
    """

    def __init__(self, spec: dict[str, Any], where: str, base_dir: Path) -> None:
        super().__init__(spec)
        self.argv = list(strings(spec, "command", where))
        #: The command as written: what a node runs in its copy of the folder.
        self.written = tuple(self.argv)
        self.timeout = COMMAND_TIMEOUT
        if "timeout" in spec:
            self.timeout = positive_seconds(spec["timeout"], f"{where}: timeout")
        self.cwd = base_dir.absolute()
        problem = argv_problem(self.argv) or program_problem(self.argv[0], self.cwd)
        if problem:
            raise InputError(f"{where}: command {problem}")
        # "checks/x.py" is the file beside the cases file; a bare "python3" stays a PATH lookup.
        if "/" in self.argv[0]:
            self.argv[0] = str(self.cwd / self.argv[0])
        #: True: the program reads the attempt's transcript as JSON, not the answer.
        self.on_transcript = reads_transcript(spec, where)
        self.settings = parse_sandbox(spec.get("sandbox", False), where, self.cwd)
        self.sandbox = None
        if self.settings is not None:
            self.sandbox = Sandbox(self.settings, self.cwd, self.argv[0])
        #: Set when the evaluation runs its programs elsewhere (``--executor ray``).
        self.elsewhere: Elsewhere | None = None

    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        remaining = deadline - asyncio.get_running_loop().time()
        limit = min(self.timeout, max(0.0, remaining))
        if self.on_transcript:
            seen = transcript if transcript is not None else Transcript()
            data = storable_json(seen.to_json()).encode("utf-8", "replace")
        else:
            data = raw_text(output).encode("utf-8", "replace")
        try:
            async with asyncio.timeout(limit):
                ended = await self._run(data)
            if ended.limit:
                said = tail(ended.stderr.decode("utf-8", "replace"))
                return Verdict(False, f"{ended.limit}: {said}", errored=True)
            code, stdout, stderr = ended.code, ended.stdout, ended.stderr
        except TimeoutError:
            if limit < self.timeout:
                return Verdict(False, "command still running at the attempt's deadline")
            return Verdict(False, f"command timed out after {self.timeout:g} s")
        except FileNotFoundError:
            return Verdict(False, f"command not found: {self.argv[0]}")
        except OSError as error:
            return Verdict(False, f"command could not start: {self.argv[0]}: {error.strerror}")
        if code == 0:
            return PASS
        if code is not None and code < 0:
            return Verdict(False, f"command killed by signal {-code}")
        last = tail(stderr.decode("utf-8", "replace")) or tail(stdout.decode("utf-8", "replace"))
        reason = f"command exited {code}"
        return Verdict(False, f"{reason}: {last}" if last else reason)

    async def _run(self, data: bytes) -> Ended:
        """The program run once on the answer: elsewhere, sandboxed here, or here."""
        if self.elsewhere is not None:
            return await self.elsewhere(self.written, self.cwd, data, self.settings, self.timeout)
        if self.sandbox is not None:
            return await self.sandbox.run(self.argv, data, self.timeout)
        return Ended(*await run_program(self.argv, self.cwd, data))
