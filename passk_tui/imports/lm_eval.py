"""lm-evaluation-harness samples (``--log_samples``: ``samples_<task>_<date>.jsonl``).

Each line is one document's result under one filter, its metrics as keys of the line; the
metric decides (``--metric``, default the line's first): 1 (or true) passes, anything else
is wrong. lm-eval scores a document once per run (its ``repeats`` feed one filtered answer),
so the attempts of a document are its lines across the runs' files imported together (runs
with other seeds or a sampling temperature), numbered in the order the files are given.
Only the first filter's lines are read (it is named on stderr). Read a line at a time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.imports.model import BadLog, ImportedAttempt, ImportedRun
from passk_tui.imports.sniff import wrong_format

TOOL = "lm-eval"
_TASK = re.compile(r"^samples_(.+?)_\d{4}-\d{2}-\d{2}T")


def read_lm_eval(paths: list[Path], metric: str | None = None) -> ImportedRun:
    run = ImportedRun(TOOL)
    tasks = {_task(path) for path in paths}
    counts: dict[str, int] = {}
    chosen: dict[str, str] = {}  # "filter", "metric": as first read
    for path in paths:
        prefix = f"{_task(path)}/" if len(tasks) > 1 else ""
        try:
            with path.open("rb") as file:
                for number, raw in enumerate(file, start=1):
                    if raw.strip():
                        _line(
                            run, raw, f"{path}: line {number}", path, prefix, metric, chosen, counts
                        )
        except OSError as exc:
            raise BadLog(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not run.attempts:
        raise BadLog(f"{paths[0]}: no samples (one JSON object a line, as --log_samples writes)")
    run.notes.append(f"metric {chosen['metric']}, filter {chosen['filter']}")
    return run


def _line(
    run: ImportedRun,
    raw: bytes,
    where: str,
    path: Path,
    prefix: str,
    metric: str | None,
    chosen: dict[str, str],
    counts: dict[str, int],
) -> None:
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise BadLog(f"{where}: {wrong_format(path, TOOL) or f'not JSON ({exc})'}") from None
    if not isinstance(line, dict) or "doc_id" not in line:
        raise BadLog(f"{where}: {wrong_format(path, TOOL) or 'a sample line has a doc_id'}")
    doc = line["doc_id"]
    where = f"{where} (doc_id {doc})"
    kind = str(line.get("filter", "none"))
    if chosen.setdefault("filter", kind) != kind:
        return
    listed_metrics = line.get("metrics")
    names: list[Any] = listed_metrics if isinstance(listed_metrics, list) else []
    name = chosen.setdefault("metric", metric or (str(names[0]) if names else ""))
    if name not in line:
        listed = ", ".join(str(n) for n in names) or "none"
        raise BadLog(
            f"{where}: no metric {name!r} (its metrics: {listed}); choose one with --metric"
        )
    value = line[name]
    if not isinstance(value, int | float):
        raise BadLog(f"{where}: metric {name} is {json.dumps(value)[:60]}, not a number")
    case = f"{prefix}{doc}"
    counts[case] = counts.get(case, 0) + 1
    passed = float(value) == 1
    run.add(
        ImportedAttempt(
            case=case,
            attempt=counts[case],
            outcome=Outcome.PASSED if passed else Outcome.WRONG,
            output=_answer(line.get("filtered_resps")),
            reason=None if passed else f"{name} {value:g} (target {line.get('target')!r})",
            input=line.get("doc"),
        )
    )


def _answer(filtered: Any) -> Any:
    """The filtered answer: lm-eval keeps one list per request; the first is the answer."""
    while isinstance(filtered, list) and len(filtered) == 1:
        filtered = filtered[0]
    return filtered


def _task(path: Path) -> str:
    found = _TASK.match(path.name)
    return found[1] if found else path.stem
