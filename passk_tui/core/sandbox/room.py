"""One sandboxed run: the attempt's own copies of its writable folders, bwrap, then cleaning up."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from passk_tui.core.run.program import run_program
from passk_tui.core.sandbox.bwrap import NOBODY, Layout, bwrap_argv
from passk_tui.core.sandbox.limits import limit_hit
from passk_tui.core.sandbox.settings import SandboxSettings

#: How often, and how many times, to look whether the sandbox's namespace is gone (at most 5 s:
#: it takes milliseconds, as SIGKILL does).
NAMESPACE_POLL = 0.002
NAMESPACE_WAITS = 2500


@dataclass(frozen=True, slots=True)
class Ended:
    """How a sandboxed program ended: its exit, its streams, and the limit it hit (if any)."""

    code: int | None
    stdout: bytes
    stderr: bytes
    limit: str | None = None


class Sandbox:
    """Runs one program of a working folder in a sandbox with the given settings, per attempt."""

    def __init__(self, settings: SandboxSettings, folder: Path, program: str) -> None:
        self.settings = settings
        self.folder = folder.absolute()
        self.bwrap = shutil.which("bwrap") or "bwrap"
        home = Path(os.path.expanduser("~")).absolute()
        # A $HOME that is '/' or not there (nobody's /nonexistent) has nothing to hide.
        self.home = home if home != Path("/") and home.is_dir() else None
        self.toolchains = _toolchains(program, self.folder, self.home)
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
            copies = await asyncio.to_thread(self._copies, scratch)
            layout = Layout(
                folder=self.folder,
                copies=copies,
                home=self.home,
                toolchains=self.toolchains,
                network=self.settings.network,
                memory_mb=self.settings.memory_mb,
                cpu_seconds=self.settings.cpu_seconds or max(1, round(cpu_seconds)),
                processes=self.settings.processes,
                as_root=self.as_root,
            )
            home = "/tmp" if self.home is None else str(self.home)
            env = {**(extra_env or {}), "TMPDIR": "/tmp", "HOME": home}
            status_read, status_write = os.pipe()
            try:
                sandboxed = bwrap_argv(self.bwrap, layout, argv, status_fd=status_write)
                code, stdout, stderr = await run_program(
                    sandboxed, self.folder, stdin, running, env, pass_fds=(status_write,)
                )
                os.close(status_write)
                status_write = -1
                await _namespace_gone(status_read)
            finally:
                for fd in (status_read, status_write):
                    if fd >= 0:
                        os.close(fd)
        finally:
            await asyncio.shield(asyncio.to_thread(shutil.rmtree, scratch, ignore_errors=True))
        return Ended(code, stdout, stderr, limit_hit(code, stderr))

    def _copies(self, scratch: Path) -> tuple[tuple[Path, Path], ...]:
        """This attempt's own copy of each writable folder (links copied as links, not followed)."""
        copies = []
        for number, name in enumerate(self.settings.writable):
            copy = scratch / str(number)
            shutil.copytree(self.folder / name, copy, symlinks=True)
            if self.as_root:
                _give_to_nobody(copy)
            copies.append((copy, (self.folder / name).resolve()))
        if self.as_root:
            os.chown(scratch, NOBODY, NOBODY)
        return tuple(copies)


async def _namespace_gone(status: int) -> None:
    """Wait until the sandbox's PID namespace is gone, with all it started.

    bwrap exits as soon as the program does; its init (pid 1 of the namespace) dies
    after it, by --die-with-parent, and only then does the kernel kill what is left in
    the namespace. bwrap's status pipe names that init (``{"child-pid": N}``), so the
    run ends only once nothing it started is left, as PRODUCT.md promises.
    """
    os.set_blocking(status, False)
    try:
        text = os.read(status, 65536).decode("utf-8", "replace")
    except BlockingIOError:
        return
    found = re.search(r'"child-pid"\s*:\s*([0-9]+)', text)
    if found is None:
        return  # bwrap failed before it started anything
    pid = int(found[1])
    for _ in range(NAMESPACE_WAITS):
        if _ended(pid):
            return
        await asyncio.sleep(NAMESPACE_POLL)


def _ended(pid: int) -> bool:
    """True when ``pid`` has exited (gone, or a zombie not yet reaped by init)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True


def _give_to_nobody(root: Path) -> None:
    """The copy owned by the user the sandbox runs as, so it may write there."""
    os.lchown(root, NOBODY, NOBODY)
    for parent, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            os.lchown(os.path.join(parent, name), NOBODY, NOBODY)


def _toolchains(program: str, folder: Path, home: Path | None) -> tuple[Path, ...]:
    """The install folders of ``program`` that lie under $HOME, the only parts of $HOME a
    sandbox sees: a venv's (``~/.venvs/x/bin/python3`` gives ``~/.venvs/x``) and the
    interpreter's it links to (a pyenv's ``~/.pyenv/versions/3.11.7``)."""
    if home is None:
        return ()
    found = str(folder / program) if os.sep in program else shutil.which(program)
    if found is None:
        return ()
    installs = []
    for path in (Path(os.path.abspath(found)), Path(os.path.realpath(found))):
        install = path.parent.parent if path.parent.name == "bin" else path.parent
        inside = install.is_relative_to(home) and not install.is_relative_to(folder)
        if inside and install != home and install not in installs:
            installs.append(install)
    return tuple(installs)
