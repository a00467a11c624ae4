"""Responsiveness outside a run: `--help`, a headless start-up, the app's first frame.

    python bench/startup.py [--repeat 10] [--no-app] [--base DIR]

- ``passk-tui --help``: spawn to exit (beside ``python -c pass``, the interpreter alone).
- headless start-up: 1 case x 1 attempt on the test stack with 0 ms Turns, spawn to the
  first byte of output (the table) and to exit; what every headless run pays once.
- ``passk-tui --headless --demo --attempts 1``: the bundled demo (in-process agent, one
  attempt per case), spawn to exit and its CPU (user + sys, from wait4).
- modules loaded: how many modules a headless run has imported when it exits (the 1 x 1
  stack run above, and ``--headless --demo --attempts 1``), and which of the lazily loaded
  ones (the export and its layouts, the comparison, regex, textual) are among them.
- ``--base DIR``: ``--help``, the two headless runs (first output, exit, CPU) and the module
  counts again, each run of this tree followed by the same run of the checkout at DIR (both
  as ``python -m passk_tui`` with ``PYTHONPATH`` the tree), so that a before and after share
  the machine's load.
- the app's first frame: ``passk-tui`` (no flags: the Configure screen) in a detached tmux
  session on its own socket, spawn until the pane shows the screen (title and form); the tmux
  server is stopped by that socket when done.
"""

from __future__ import annotations

import argparse
import os
import resource
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
    load,
    machine,
    run_measured,
    spread,
    stack,
    write_cases,
)


def spawn_to_exit(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, check=False, timeout=60)
    return time.perf_counter() - start


def first_output(
    argv: list[str], env: dict[str, str], cwd: Path = ROOT
) -> tuple[float, float, float]:
    """Seconds from spawn to the first byte on stdout or stderr, to exit, and its CPU (user + sys)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        while first is None and proc.poll() is None:
            if sel.select(timeout=0.001):
                first = time.perf_counter() - start
    proc.communicate(timeout=60)
    end = time.perf_counter() - start
    # The child is reaped by now; the stack server (the other child) is not, so it is not counted.
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return (first if first is not None else end), end, cpu


#: The bundled demo's headless run, one attempt per case: a start-up with no server.
DEMO = ["--headless", "--demo", "--attempts", "1"]

#: Modules a plain headless run should not need; the count line says which of them it loaded.
LAZY = (
    "textual",
    "regex",
    "passk_tui.reports.export",
    "passk_tui.reports.report_html",
    "passk_tui.reports.junit",
    "passk_tui.cli.pair",
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


def modules_loaded(
    argv: list[str], env: dict[str, str], tree: Path = ROOT
) -> tuple[int, list[str]]:
    """How many modules ``passk-tui argv`` (of ``tree``) has imported at exit, and which of LAZY."""
    done = subprocess.run(
        [PYTHON, "-c", _COUNT_MODULES, ",".join(LAZY), *argv],
        env=env, cwd=tree, capture_output=True, text=True, timeout=60,
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


def paired(base: Path, repeat: int, env: dict[str, str], stack_argv: list[str]) -> None:
    """``--help``, the stack run and the demo of this tree and of ``base``, alternately.

    Both trees run as ``python -m passk_tui`` from their own folder (the console script's
    module moved in the house: an older tree has no ``passk_tui.cli.main``), each with its
    own store (an older tree may refuse a newer store's schema).
    """
    trees = {"this tree": ROOT, f"base {base}": base}
    envs = {
        label: {**env, "PYTHONPATH": str(tree), "PASSK_DATA_DIR": f"{env['PASSK_DATA_DIR']}-{i}"}
        for i, (label, tree) in enumerate(trees.items())
    }
    module = [PYTHON, "-m", "passk_tui"]
    runs = {
        "--help": [*module, "--help"],
        "stack 1 x 1": [*module, *stack_argv[1:]],
        "demo": [*module, *DEMO],
    }
    firsts: dict[tuple[str, str], list[float]] = {}
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for _ in range(repeat):
        for label, tree in trees.items():
            for run, argv in runs.items():
                first, end, cpu = first_output(argv, envs[label], tree)
                firsts.setdefault((label, run), []).append(1000 * first)
                walls.setdefault((label, run), []).append(1000 * end)
                cpus.setdefault((label, run), []).append(1000 * cpu)
    print(f"load after the paired runs: {load()}")
    for label, tree in trees.items():
        for run, argv in runs.items():
            counted = ""
            if run != "--help":
                count, lazy = modules_loaded(argv[3:], envs[label], tree)
                counted = f", {count} modules ({lazy or 'none'})"
            print(
                f"{label}, {run}: first output {spread(firsts[label, run], '{:.0f}')} ms, "
                f"exit {spread(walls[label, run], '{:.0f}')} ms, "
                f"CPU {spread(cpus[label, run], '{:.0f}')} ms{counted}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--no-app", action="store_true", help="skip the app's first frame")
    parser.add_argument("--base", type=Path, help="a checkout to measure alternately with this one")
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
            f"headless 1 x 1, 0 ms Turn: first output {spread([1000 * r[0] for r in runs], '{:.0f}')} ms,"
            f" exit {spread([1000 * r[1] for r in runs], '{:.0f}')} ms"
        )
        demo = [run_measured([PASSK, *DEMO], env=env, cwd=ROOT) for _ in range(args.repeat)]
        print(
            f"{' '.join(DEMO)}: exit {spread([1000 * d.wall for d in demo], '{:.0f}')} ms,"
            f" CPU {spread([1000 * d.cpu for d in demo], '{:.0f}')} ms"
        )
        for label, argv in (
            ("headless 1 x 1 (stack)", headless_argv(server.url, cases, 1, 1)[1:]),
            (" ".join(DEMO), DEMO),
        ):
            count, lazy = modules_loaded(argv, env)
            print(f"modules at exit, {label}: {count} (of {', '.join(LAZY)}: {lazy or 'none'})")
        if args.base is not None:
            paired(args.base.resolve(), args.repeat, env, headless_argv(server.url, cases, 1, 1))
        if args.no_app:
            return
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
