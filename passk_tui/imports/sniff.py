"""Which tool wrote a file, guessed from its first bytes: so a file given under the wrong
format is named for what it is ("this is a promptfoo results file; use `import promptfoo`")."""

from __future__ import annotations

from pathlib import Path

#: How much of a file is looked at: every format names its telling keys near its start.
_HEAD = 64 * 1024

#: Each format, what its file is called, and keys its start holds (all of one set).
_SIGNS: list[tuple[str, str, tuple[tuple[str, ...], ...]]] = [
    (
        "promptfoo",
        "a promptfoo results file",
        (('"evalId"',), ('"prompts"', '"stats"', '"results"')),
    ),
    (
        "tau-bench",
        "a tau2-bench results file",
        (('"simulations"', '"tasks"'), ('"tasks"', '"agent_info"', '"num_trials"')),
    ),
    ("tau-bench", "a tau-bench results file", (('"task_id"', '"reward"'),)),
    ("lm-eval", "an lm-eval samples file", (('"doc_id"', '"resps"'), ('"doc_id"', '"doc"'))),
    ("inspect", "an inspect log", (('"eval"', '"task"', '"model"'),)),
    ("jsonl", "a JSONL attempts file", (('"case"', '"outcome"'),)),
]


def guess_format(path: Path) -> tuple[str, str] | None:
    """(format, what the file is) when its start says which tool wrote it; else None."""
    try:
        with path.open("rb") as file:
            head = file.read(_HEAD)
    except OSError:
        return None
    if head.startswith(b"PK\x03\x04"):
        return (
            ("inspect", "an inspect .eval log")
            if b"header.json" in head or b"_journal/" in head
            else None
        )
    text = head.decode("utf-8", errors="replace")
    for name, what, alternatives in _SIGNS:
        if any(all(key in text for key in keys) for keys in alternatives):
            return name, what
    if '"results"' in text and '"versions"' in text and '"configs"' in text:
        return (
            "lm-eval",
            "lm-eval's aggregated results (import the samples_*.jsonl it wrote with --log_samples)",
        )
    return None


def wrong_format(path: Path, asked: str) -> str | None:
    """The words for a file of another format than ``asked``; None when it looks like none."""
    found = guess_format(path)
    if found is None or found[0] == asked:
        if found is not None and "aggregated" in found[1]:
            return f"this is {found[1]}"
        return None
    name, what = found
    return f"this is {what}; use `import {name}`"
