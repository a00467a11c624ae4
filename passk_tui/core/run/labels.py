"""A person's labels for `judge-check`: JSON Lines of {"input", "answer", "rubric", "label"}."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.run.cases import jsonl_rows, read_cases_text
from passk_tui.core.text.mentions import near_hint, type_name

LABEL_KEYS = ("input", "answer", "rubric", "label")
LABELS = ("pass", "fail")


@dataclass(frozen=True, slots=True)
class Labelled:
    """One answer a person labelled: what the agent was given and said, the rubric, the label."""

    place: str
    input: Any
    answer: Any
    rubric: str
    passed: bool


def load_labels(path: Path) -> list[Labelled]:
    """Read and check a labels file; any problem is one InputError naming the line and field."""
    label = str(path)
    if path.suffix.lower() != ".jsonl":
        raise InputError(f"{label}: a labels file is JSON Lines (.jsonl)")
    rows = jsonl_rows(read_cases_text(path, label), label)
    if not rows:
        raise InputError(f"{label}: no labelled answers")
    return [_labelled(row, f"{label}: {place}") for place, row in rows]


def _labelled(row: Any, where: str) -> Labelled:
    if not isinstance(row, dict):
        raise InputError(f"{where}: must be an object with {', '.join(LABEL_KEYS)}")
    for key in row:
        if key not in LABEL_KEYS:
            raise InputError(f"{where}: unknown field {key!r}{near_hint(str(key), LABEL_KEYS)}")
    for key in LABEL_KEYS:
        if key not in row:
            raise InputError(f"{where}: missing field {key!r}")
    rubric = row["rubric"]
    if not isinstance(rubric, str) or not rubric.strip():
        raise InputError(f"{where}: rubric must be a non-empty string, got {type_name(rubric)}")
    if row["label"] not in LABELS:
        raise InputError(f'{where}: label must be "pass" or "fail", got {row["label"]!r}')
    return Labelled(where, row["input"], row["answer"], rubric, row["label"] == "pass")
