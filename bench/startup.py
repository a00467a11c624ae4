"""Responsiveness outside a run: `--help`, a headless start-up, the app's first frame.

    python bench/startup.py [--repeat 10]

- ``passk-tui --help``: spawn to exit (beside ``python -c pass``, the interpreter alone).
- headless start-up: 1 case x 1 attempt on the test stack with 0 ms Turns, spawn to the
  first byte of output (the table) and to exit; what every headless run pays once.
- modules loaded: how many modules a headless run has imported when it exits (the 1 x 1
  stack run above, and ``--headless --demo --attempts 1``), and which of the lazily loaded
  ones (export layouts, the comparison, regex, textual) are among them.
- the app's first frame: ``passk-tui`` (no flags: the Configure screen) in a detached tmux
  session on its own socket, spawn until the pane shows the screen (title and form); the tmux
  server is stopped by that socket when done.
"""

from __future__ import annotations

import argparse
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from harness import (
    PASSK,
    PYTHON,
    ROOT,
    fresh_env,
    headless_argv,
    machine,
    spread,
    stack,
    write_cases,
)


def spawn_to_exit(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, check=False, timeout=60)
    return time.perf_counter() - start


def first_output(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawn to the first byte on stdout or stderr, and to exit."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        while first is None and proc.poll() is None:
            if sel.select(timeout=0.001):
                first = time.perf_counter() - start
    proc.communicate(timeout=60)
    end = time.perf_counter() - start
    return (first if first is not None else end), end


#: Modules a plain headless run should not need; the count line says which of them it loaded.
LAZY = (
    "textual",
    "regex",
    "passk_tui.store.report_html",
    "passk_tui.store.export_junit",
    "passk_tui.baseline_cli",
)

_COUNT_MODULES = (
    "import atexit, runpy, sys\n"
    "watched = sys.argv[1].split(',')\n"
    "def _count():\n"
    "    lazy = [m for m in watched if m in sys.modules]\n"
    "    sys.__stderr__.write(f'MODULES {len(sys.modules)} {\",\".join(lazy)}\\n')\n"
    "atexit.register(_count)\n"
    "sys.argv = ['passk-tui', *sys.argv[2:]]\n"
    "runpy.run_module('passk_tui', run_name='__main__')\n"
)


def modules_loaded(argv: list[str], env: dict[str, str]) -> tuple[int, list[str]]:
    """How many modules ``passk-tui argv`` has imported at exit, and which of LAZY."""
    done = subprocess.run(
        [PYTHON, "-c", _COUNT_MODULES, ",".join(LAZY), *argv],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    _, count, *lazy = line.split(" ")
    return int(count), [m for m in lazy[0].split(",") if m] if lazy else []


def app_first_frame(env: dict[str, str], folder: Path) -> float | None:
    """Spawn ``passk-tui`` in tmux; seconds until the Configure screen is on the pane."""
    if shutil.which("tmux") is None:
        return None
    sock = f"passk-bench-{os.getpid()}"
    script = folder / "app.sh"
    exports = " ".join(f"{k}={v}" for k, v in env.items() if k.startswith(("XDG_", "PASSK_")))
    script.write_text(f"cd {ROOT} && env {exports} TERM=xterm-256color {PASSK}\n")
    tmux = ["tmux", "-L", sock]
    start = time.perf_counter()
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "160", "-y", "50", "bash", str(script)],
        capture_output=True,
    )
    shown = None
    try:
        while time.perf_counter() - start < 20:
            pane = subprocess.run(
                [*tmux, "capture-pane", "-p"], capture_output=True, text=True
            ).stdout
            if "passk-tui" in pane and "Agent" in pane:  # the Configure screen
                shown = time.perf_counter() - start
                break
            time.sleep(0.005)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    return shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="passk-bench-start-") as tmp, stack(0.0) as server:
        folder = Path(tmp)
        env = fresh_env(folder)
        bare = [spawn_to_exit([PYTHON, "-c", "pass"], env) for _ in range(args.repeat)]
        helps = [spawn_to_exit([PASSK, "--help"], env) for _ in range(args.repeat)]
        print(f"python -c pass:        {spread([1000 * x for x in bare], '{:.0f}')} ms")
        print(f"passk-tui --help:      {spread([1000 * x for x in helps], '{:.0f}')} ms")
        cases = write_cases(folder / "one.jsonl", 1)
        runs = [
            first_output(headless_argv(server.url, cases, 1, 1), env) for _ in range(args.repeat)
        ]
        print(
            f"headless 1 x 1, 0 ms Turn: first output {spread([1000 * f for f, _ in runs], '{:.0f}')} ms,"
            f" exit {spread([1000 * e for _, e in runs], '{:.0f}')} ms"
        )
        for label, argv in (
            ("headless 1 x 1 (stack)", headless_argv(server.url, cases, 1, 1)[1:]),
            ("--headless --demo --attempts 1", ["--headless", "--demo", "--attempts", "1"]),
        ):
            count, lazy = modules_loaded(argv, env)
            print(f"modules at exit, {label}: {count} (of {', '.join(LAZY)}: {lazy or 'none'})")
        frames = [app_first_frame(env, folder) for _ in range(min(args.repeat, 5))]
        frames = [f for f in frames if f is not None]
        if frames:
            print(
                f"app first frame (tmux, Configure screen): {spread([1000 * f for f in frames], '{:.0f}')} ms"
            )
        else:
            print("app first frame: not measured (no tmux, or the screen did not show)")


if __name__ == "__main__":
    main()
