"""A deterministic command agent for tests: the input scripts its answers.

The input is JSON {"answer": "...", "script": "PPWWE", "sleep": 0.05}. The n-th
call with a given input (counted in a file, under a lock, so concurrent calls
agree) answers by the n-th letter: P the answer, W a wrong one, E exit 1.
Every call appends its start and end times to calls.log, so tests measure
concurrency from the agent's side.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import sys
import time
from pathlib import Path


def next_call(raw: str) -> int:
    counter = Path("state") / hashlib.sha256(raw.encode()).hexdigest()
    counter.parent.mkdir(exist_ok=True)
    with open(counter.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        n = int(counter.read_text()) if counter.exists() else 0
        counter.write_text(str(n + 1))
    return n


def log(line: str) -> None:
    with open("calls.log", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(line + "\n")


def main() -> int:
    raw = sys.stdin.read()
    spec = json.loads(raw)
    n = next_call(raw)
    log(f"start {time.time()}")
    time.sleep(spec.get("sleep", 0))
    log(f"end {time.time()}")
    letter = spec["script"][n % len(spec["script"])]
    if letter == "E":
        sys.stderr.write("scripted failure\n")
        return 1
    print(spec["answer"] if letter == "P" else "not " + spec["answer"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
