"""Running the tools a model calls: each call's program, its arguments as JSON on stdin.

A tool is the model's instrument, not the attempt's judge: whatever goes wrong with a
call (an unknown name, arguments that are not JSON, a crash, a timeout, a sandbox
limit) is answered to the model as an error it can read and recover from, and the
attempt goes on. Every call is bounded by its own timeout and the attempt's deadline;
a cancelled attempt kills the tool's whole process group.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from passk_tui.core.inputs.program import run_program
from passk_tui.core.sandbox.room import Elsewhere, Sandbox
from passk_tui.core.transcript import cut_text
from passk_tui.targets.conversing.tools_file import ToolsFile, ToolSpec

#: How much of a failing tool's stderr the model is told: the end, where the reason is.
_STDERR_TAIL = 500


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """What a call gave back to the model: its text, whether it failed, and how long it took."""

    content: str
    error: bool
    duration: float


class ToolBox:
    """The tools of one tools file, ready to run for any attempt."""

    def __init__(self, tools: ToolsFile) -> None:
        self.file = tools
        self.tools = {tool.name: tool for tool in tools.tools}
        self._sandboxes = {
            tool.name: Sandbox(tool.sandbox, tools.folder, tool.command[0])
            for tool in tools.tools
            if tool.sandbox is not None
        }
        self._running: set[asyncio.subprocess.Process] = set()
        #: Set when the evaluation runs its programs elsewhere (``--executor ray``): each call
        #: a task on the cluster, which ships the tools file's folder.
        self.elsewhere: Elsewhere | None = None

    def declared(self) -> list[dict[str, Any]]:
        """The tools as the model is told of them (the request's ``tools``)."""
        return [tool.declared() for tool in self.tools.values()]

    async def call(self, name: str, arguments: str, deadline: float) -> tuple[Any, ToolAnswer]:
        """Run one call: (its arguments as parsed, or as written when not JSON; its answer)."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        parsed: Any = arguments
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            return parsed, _failed(f"the arguments are not JSON: {exc}", began)
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(self.tools)
            return parsed, _failed(f"no tool named {name!r} (tools: {known})", began)
        if not isinstance(parsed, dict):
            return parsed, _failed("the arguments must be a JSON object", began)
        text, failed = await self._run(tool, json.dumps(parsed).encode(), deadline)
        return parsed, ToolAnswer(cut_text(text), failed, loop.time() - began)

    async def _run(self, tool: ToolSpec, data: bytes, deadline: float) -> tuple[str, bool]:
        """The tool's program on ``data``: (stdout, False) on exit 0, else (why, True)."""
        left = deadline - asyncio.get_running_loop().time()
        limit = max(0.0, min(tool.timeout, left))
        sandbox = self._sandboxes.get(tool.name)
        folder = self.file.folder
        try:
            async with asyncio.timeout(limit):
                if self.elsewhere is not None:
                    ended = await self.elsewhere(tool.command, folder, data, tool.sandbox, limit)
                    code, stdout, stderr = ended.code, ended.stdout, ended.stderr
                    if ended.limit:
                        return f"error: {ended.limit}", True
                elif sandbox is None:
                    code, stdout, stderr = await run_program(
                        tool.command, folder, data, self._running
                    )
                else:
                    ended = await sandbox.run(tool.command, data, limit, self._running)
                    code, stdout, stderr = ended.code, ended.stdout, ended.stderr
                    if ended.limit:
                        return f"error: {ended.limit}", True
        except TimeoutError:
            if limit < tool.timeout:
                return "error: still running at the attempt's deadline", True
            return f"error: timed out after {tool.timeout:g} s", True
        except OSError as exc:
            return f"error: cannot start {tool.command[0]!r}: {exc.strerror or exc}", True
        out = stdout.decode("utf-8", "replace")
        if code == 0:
            return out.removesuffix("\n"), False
        said = stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
        return f"error: exit {code}" + (f": {said}" if said else ""), True


def _failed(reason: str, began: float) -> ToolAnswer:
    return ToolAnswer(f"error: {reason}", True, asyncio.get_running_loop().time() - began)
