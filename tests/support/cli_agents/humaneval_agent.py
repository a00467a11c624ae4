"""A scripted HumanEval "model" for tests: the n-th call on a problem answers by its script.

P the canonical solution as a bare completion (the body, indented), F the whole
function in a ```python fence, W a wrong body, E exit 1 (an errored attempt).
The problems come from problems.jsonl in the working folder (to_cases.py wrote it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scripted import next_call

SCRIPTS = {"HumanEval/0": "PFPFP", "HumanEval/1": "PWEFW", "HumanEval/2": "WEWWE"}


def main() -> int:
    prompt = sys.stdin.read()
    rows = (json.loads(line) for line in Path("problems.jsonl").read_text().splitlines())
    task = next(row for row in rows if row["prompt"] == prompt)
    script = SCRIPTS[task["task_id"]]
    letter = script[next_call(prompt) % len(script)]
    if letter == "E":
        sys.exit("the model server went away")
    answers = {
        "P": task["canonical_solution"],
        "F": "Here it is:\n```python\n" + prompt + task["canonical_solution"] + "```\nDone.",
        "W": "    return None\n",
    }
    sys.stdout.write(answers[letter])
    return 0


if __name__ == "__main__":
    sys.exit(main())
