"""One sandboxed run: the attempt's own copy of the working folder, bwrap, then cleaning up."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from passk_tui.core.inputs.program import child_env, run_program
from passk_tui.core.sandbox.bwrap import NOBODY, Layout, bwrap_argv
from passk_tui.core.sandbox.limits import START, limit_hit
from passk_tui.core.sandbox.seen import files_seen, others_reach, program_seen
from passk_tui.core.sandbox.settings import SandboxSettings
from passk_tui.core.sandbox.tether import dies_with_us, end_tethered
from passk_tui.core.sandbox.working_copy import WritableOutside, copy_folder


@dataclass(frozen=True, slots=True)
class Ended:
    """How a sandboxed program ended: its exit, its streams, and the limit it hit (if any)."""

    code: int | None
    stdout: bytes
    stderr: bytes
    limit: str | None = None


class Elsewhere(Protocol):
    """Where a `command` check's or a tool's program runs when not here (``--executor ray``:
    a Ray task).

    Given the command as written (relative to its folder: the cases file's, or the tools
    file's, which it ships), the folder, the program's stdin, the sandbox settings and the
    timeout; raises TimeoutError past the timeout and OSError when the program cannot
    start, as a run here does.
    """

    async def __call__(
        self,
        argv: Sequence[str],
        folder: Path,
        stdin: bytes,
        sandbox: SandboxSettings | None,
        seconds: float,
    ) -> Ended: ...


class Sandbox:
    """Runs one program of a working folder in a sandbox with the given settings, per attempt."""

    def __init__(self, settings: SandboxSettings, folder: Path, program: str) -> None:
        self.settings = settings
        self.folder = folder.absolute()
        self.bwrap = shutil.which("bwrap") or "bwrap"
        home = Path(os.path.expanduser("~")).absolute()
        # A $HOME that is '/' or not there (nobody's /nonexistent) has nothing to hide.
        self.home = home if home != Path("/") and home.is_dir() else None
        self.hidden = (Path("/tmp"), *([] if self.home is None else [self.home]))
        self.installs = program_seen(program, self.folder, self.hidden)
        self.as_root = os.geteuid() == 0

    def __repr__(self) -> str:
        return f"Sandbox({self.settings!r}, folder={str(self.folder)!r})"

    async def run(
        self,
        argv: Sequence[str],
        stdin: bytes,
        cpu_seconds: float,
        running: set[asyncio.subprocess.Process] | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> Ended:
        """Run ``argv`` sandboxed; ``cpu_seconds`` when the settings give none (the timeout)."""
        scratch = Path(tempfile.mkdtemp(prefix="passk-sandbox-"))
        try:
            scratch.chmod(0o711)  # passable (not listable) for a bwrap run as nobody
            copy, writable = scratch / "folder", self.settings.writable
            try:
                await asyncio.to_thread(copy_folder, self.folder, copy, writable, self.as_root)
            except WritableOutside as exc:
                return Ended(1, b"", b"", f"{START}: {exc}")
            readable = (*self.installs, *files_seen(argv[1:], self.folder, self.hidden))
            hidden = any(self.folder.is_relative_to(top) for top in self.hidden)
            # Made by root: bwrap runs as nobody when nobody can reach all it binds.
            switch = self.as_root and not others_reach(
                [*readable, *([] if hidden else [self.folder])]
            )
            layout = Layout(
                folder=self.folder,
                copy=copy,
                writable=writable,
                home=self.home,
                readable=readable,
                network=self.settings.network,
                memory_mb=self.settings.memory_mb,
                cpu_seconds=self.settings.cpu_seconds or max(1, round(cpu_seconds)),
                processes=self.settings.processes,
                as_root=switch,
            )
            home = "/tmp" if self.home is None else str(self.home)
            env = {**(extra_env or {}), "TMPDIR": "/tmp", "HOME": home}
            user = NOBODY if self.as_root and not switch else None
            code, stdout, stderr = await self._bwrap(layout, argv, stdin, running, env, user)
        finally:
            await asyncio.shield(asyncio.to_thread(shutil.rmtree, scratch, ignore_errors=True))
        return Ended(code, stdout, stderr, limit_hit(code, stderr))

    async def _bwrap(
        self,
        layout: Layout,
        argv: Sequence[str],
        stdin: bytes,
        running: set[asyncio.subprocess.Process] | None,
        env: dict[str, str],
        user: int | None,
    ) -> tuple[int | None, bytes, bytes]:
        """bwrap run to its end, and so to the end of its PID namespace, tied to us at every
        instant (core/sandbox/tether.py); cut short, bwrap is killed first."""
        sandboxed = bwrap_argv(self.bwrap, layout, argv)
        tie = dies_with_us(sandboxed, child_env(env), user)
        return await run_program(sandboxed, self.folder, stdin, running, env, end_tethered, tie)
