"""The one way the tests run passk-tui as a real process: its environment, the seed table."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SEED_TABLE = """\
case        passed  wrong  errored  pass@1  pass@3  all passed
----------  ------  -----  -------  ------  ------  ----------
arithmetic  3/5     2      0        0.60    1.00    no
json-shape  0/5     4      1        0.00    0.00    no
summary     5/5     0      0        1.00    1.00    yes
"""


#: The key the CLI's stack tests hand over in PASSK_KEY.
KEY = "sk-PASSK-stack-5f0c2a91e4"


def environment(
    data: Path | str | None = None, key: str | None = None, **more: str
) -> dict[str, str]:
    """This environment without any PASSK_ variable, plus the store in ``data`` (by default the
    test's own private PASSK_DATA_DIR), PASSK_KEY when ``key`` is given, and ``more``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    env["PASSK_DATA_DIR"] = str(data) if data is not None else os.environ.get("PASSK_DATA_DIR", ".")
    if key is not None:
        env["PASSK_KEY"] = key
    env.update(more)
    return env


def command(
    *args: str, headless: bool = True, launch: Sequence[str] = ("-m", "passk_tui")
) -> list[str]:
    """The argv of ``passk-tui [--headless] args`` (``launch``: how python starts it)."""
    return [sys.executable, *launch, *(["--headless"] if headless else []), *args]


def run(
    *args: str,
    data: Path | str | None = None,
    key: str | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
    headless: bool = True,
    prefix: Sequence[str] = (),
    env: dict[str, str] | None = None,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """Run passk-tui ``args`` in its own process to its end, its output captured as text (unless
    ``options`` redirect it). ``env`` defaults to ``environment(data, key)``; ``prefix`` goes
    before python (a wrapper such as ``setsid``)."""
    if "stdout" not in options and "stderr" not in options:
        options["capture_output"] = True
    return subprocess.run(
        [*prefix, *command(*args, headless=headless)],
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=environment(data, key) if env is None else env,
        **options,
    )


def start(
    *args: str,
    data: Path,
    key: str | None = None,
    launch: Sequence[str] = ("-m", "passk_tui"),
    **popen: Any,
) -> subprocess.Popen[str]:
    """passk-tui --headless ``args`` started in its own process, stdout and stderr piped."""
    return subprocess.Popen(
        command(*args, launch=launch),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(data, key),
        **popen,
    )


def finish(process: subprocess.Popen[str], timeout: float = 60) -> tuple[int, str, str]:
    """Wait for a process ``start`` began: its exit code, stdout and stderr."""
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


async def run_async(
    *args: str, env: dict[str, str], cwd: Path, headless: bool = True
) -> tuple[int, str, str]:
    """Run the headless CLI (or a subcommand: ``headless`` False) as a real process, without
    blocking the loop a fake server runs in."""
    process = await asyncio.create_subprocess_exec(
        *command(*args, headless=headless), cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def scripted(agents: Path, *args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """The headless CLI with the scripted agent of ``agents``/agents.toml, version 1."""
    return run(
        "--agents", str(agents / "agents.toml"), "--agent", "scripted", "--version", "1", *args,
        **options,
    )  # fmt: skip
