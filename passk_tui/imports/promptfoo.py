"""promptfoo results (``promptfoo eval --repeat N -o results.json``): each repeat of a test
an attempt, ``success`` decides, an error is errored.

``--repeat`` writes every repeat as a test of its own (``testIdx`` 0..); the repeats of a
test share its description (else its vars), so they are one case, numbered in ``testIdx``
order. A result failed by its assertions is wrong (``failureReason`` 1); one failed by an
error (``failureReason`` 2: the provider's HTTP 500, a timeout) is errored, with the error.
With several prompts or providers, each pair is a case of its own (``name · provider``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.imports.model import (
    BadLog,
    ImportedAttempt,
    ImportedRun,
    not_a,
    object_of,
    read_json_file,
)

TOOL = "promptfoo"
#: promptfoo's ResultFailureReason: 1 an assertion failed, 2 an error.
_ERROR = 2


def read_promptfoo(paths: list[Path]) -> ImportedRun:
    """Every result of these files (several files of one run: their results together)."""
    run = ImportedRun(TOOL)
    for path in paths:
        whole = read_json_file(path, TOOL)
        table = whole.get("results") if isinstance(whole, dict) else None
        if not isinstance(table, dict) or not isinstance(table.get("results"), list):
            raise not_a(path, TOOL, "not a promptfoo results file (no results.results list)")
        run.tool_version = run.tool_version or (whole.get("metadata") or {}).get("promptfooVersion")
        results = [r for r in table["results"]]
        pairs = {(r.get("promptIdx"), _provider(r)) for r in results if isinstance(r, dict)}
        seen: dict[str, int] = {}
        ordered = sorted(enumerate(results), key=lambda item: _test_index(item[1], item[0]))
        for index, result in ordered:
            where = f"{path}: results[{index}]"
            if not isinstance(result, dict):
                raise BadLog(f"{where}: a result must be an object")
            name = _case_name(result, where)
            if len(pairs) > 1:
                name = f"{name} · prompt {result.get('promptIdx')} · {_provider(result)}"
            seen[name] = seen.get(name, 0) + 1
            run.add(_attempt(result, name, seen[name], where))
        providers = {p for _, p in pairs}
        if len(providers) == 1:
            run.agent = run.agent or next(iter(providers))
        _keep_stats(run, path, table.get("stats"))
    return run


def _attempt(result: dict[str, Any], name: str, number: int, where: str) -> ImportedAttempt:
    success = result.get("success")
    if not isinstance(success, bool):
        raise BadLog(
            f"{where} ({name!r}): success must be true or false, got {json.dumps(success)}"
        )
    response = object_of(result.get("response"))
    error = result.get("error") or response.get("error")
    errored = not success and (result.get("failureReason") == _ERROR or _no_grading(result))
    common: dict[str, Any] = {
        "case": name,
        "attempt": number,
        "output": response.get("output"),
        "duration": (result.get("latencyMs") or 0) / 1000,
        "usage": _usage(result.get("tokenUsage") or response.get("tokenUsage")),
        "input": result.get("vars"),
    }
    if success:
        return ImportedAttempt(outcome=Outcome.PASSED, **common)
    if errored:
        return ImportedAttempt(outcome=Outcome.ERRORED, error=str(error or "error"), **common)
    grading = object_of(result.get("gradingResult"))
    reason = grading.get("reason") or error
    return ImportedAttempt(
        outcome=Outcome.WRONG, reason=None if reason is None else str(reason), **common
    )


def _no_grading(result: dict[str, Any]) -> bool:
    """A failed result that carries an error and no grading (promptfoo before failureReason)."""
    return (
        "failureReason" not in result
        and bool(result.get("error"))
        and not result.get("gradingResult")
    )


def _case_name(result: dict[str, Any], where: str) -> str:
    test = object_of(result.get("testCase"))
    description = test.get("description") or result.get("description")
    if description:
        return str(description)
    variables = test.get("vars", result.get("vars"))
    if variables is None:
        raise BadLog(f"{where}: a result names its test by description or vars; it has neither")
    return json.dumps(variables, sort_keys=True, ensure_ascii=False)


def _provider(result: dict[str, Any]) -> str:
    provider = result.get("provider")
    if isinstance(provider, dict):
        return str(provider.get("label") or provider.get("id") or "provider")
    return str(provider or "provider")


def _test_index(result: Any, index: int) -> tuple[int, int]:
    value = result.get("testIdx") if isinstance(result, dict) else None
    return (value if isinstance(value, int) else index, index)


def _usage(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt"), usage.get("completion")
    if not isinstance(prompt, int) and not isinstance(completion, int):
        return None
    return {
        "input_tokens": prompt if isinstance(prompt, int) else 0,
        "output_tokens": completion if isinstance(completion, int) else 0,
    }


def _keep_stats(run: ImportedRun, path: Path, stats: Any) -> None:
    """promptfoo's own totals, for the check that the mapping agrees with them."""
    if isinstance(stats, dict):
        kept = {key: stats.get(key) for key in ("successes", "failures", "errors")}
        run.reported[str(path)] = kept
