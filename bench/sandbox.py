"""What a sandbox costs per attempt: the same `command` agent run sandboxed and not.

    PYTHONPATH=. python bench/sandbox.py [--attempts 40] [--program true|python]

Each attempt is one ``CommandTarget.execute`` (spawn, stdin, stdout, exit, reap), one
after another so that none waits for a core, alternating sandboxed and unsandboxed
attempts so that both share the machine's load. The program is ``/bin/true`` (what the
sandbox adds, with nothing else to hide it) or ``python3 -c pass`` (a typical agent's
start). The sandbox is the default one (``sandbox = true``) on a working folder of a
few files. Prints the median and quartiles of each, and the median difference.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from harness import machine

from passk_tui.core.sandbox.settings import SandboxSettings
from passk_tui.targets.command import CommandTarget

PROGRAMS = {"true": ["/bin/true"], "python": [sys.executable, "-c", "pass"]}


async def one(target: CommandTarget) -> float:
    planned: Any = SimpleNamespace(case=SimpleNamespace(input="x", name="c"), attempt=1)
    loop = asyncio.get_running_loop()
    start = time.perf_counter()
    turn = await target.execute(planned, loop.time() + 60, lambda reason, delay: None)
    took = time.perf_counter() - start
    assert turn.status == "completed", turn.error
    return took


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=40)
    parser.add_argument("--program", choices=sorted(PROGRAMS), default="true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name in ("agent.py", "agents.toml", "helpers.py"):
            (Path(folder) / name).write_text("# a few lines\n" * 50)
        argv = PROGRAMS[args.program]
        plain = CommandTarget(argv, Path(folder))
        boxed = CommandTarget(argv, Path(folder), sandbox=SandboxSettings())
        await one(plain), await one(boxed)  # warm caches alike
        times: dict[str, list[float]] = {"unsandboxed": [], "sandboxed": []}
        for _ in range(args.attempts):
            times["unsandboxed"].append(await one(plain))
            times["sandboxed"].append(await one(boxed))
    print(machine())
    print(f"{args.attempts} attempts each of {' '.join(argv)}, one at a time")
    for name, values in times.items():
        q1, median, q3 = statistics.quantiles(values, n=4)
        print(
            f"{name:12}  median {median * 1000:6.1f} ms  (quartiles {q1 * 1000:.1f}-{q3 * 1000:.1f})"
        )
    pairs = zip(times["unsandboxed"], times["sandboxed"], strict=True)
    extra = statistics.median(boxed - plain for plain, boxed in pairs)
    print(f"sandbox adds {extra * 1000:.1f} ms per attempt (median of paired differences)")


if __name__ == "__main__":
    asyncio.run(main())
