"""The configure form's model: field texts in, per-field errors and hints plus Settings out.

Pure Python (no Textual), so the rules are testable on their own. The parse
functions of ``core.settings`` name no field; their messages go beside the field.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.run.cases import load_cases
from passk_tui.core.run.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_CONCURRENCY,
    DEFAULT_TIMEOUT,
    Settings,
    default_k,
    parse_attempts,
    parse_concurrency,
    parse_k,
    parse_require,
    parse_timeout,
    parse_version,
)
from passk_tui.core.stats.gate import CONFIDENT_GATE_SHORT
from passk_tui.core.stats.intervals import DEFAULT_CONFIDENCE, parse_confidence
from passk_tui.evaluations.settings_text import STACK_CREDENTIALS
from passk_tui.targets.addresses import address_problem
from passk_tui.targets.scrub import key_problem

#: The text fields, in the order the screen shows them (completion_only is a switch).
TEXT_FIELDS = (
    "agent",
    "version",
    "cases",
    "attempts",
    "k",
    "require",
    "confidence",
    "baseline",
    "concurrency",
    "timeout",
    "stack",
    "key",
    "agents",
)

FormValues = dict[str, str | bool]


def blank_form() -> FormValues:
    """Every field empty: empty optional fields take their defaults."""
    values: FormValues = dict.fromkeys(TEXT_FIELDS, "")
    values["completion_only"] = False
    return values


@dataclass
class FormCheck:
    """The verdict on a form: an error or a hint per field, and the Settings when all is valid."""

    errors: dict[str, str] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)
    settings: Settings | None = None
    #: The agent's versions when known (local agents file), to offer as completions.
    versions: list[int] = field(default_factory=list)
    #: The level of the intervals (and of the gate, with require); None: not given.
    confidence: float | None = None
    #: The version to run beside ``version`` and compare against (a baseline run); None: none.
    baseline: int | None = None


def check_form(values: Mapping[str, str | bool]) -> FormCheck:
    """Validate every field; what needs the network (the stack's agents) is checked elsewhere."""
    check = FormCheck()
    text = {name: str(values.get(name, "") or "").strip() for name in TEXT_FIELDS}
    completion_only = bool(values.get("completion_only", False))

    def parsed(name: str, parse: Callable[[str], Any], default: Any) -> Any:
        if not text[name]:
            return default
        try:
            return parse(text[name])
        except InputError as exc:
            check.errors[name] = str(exc)
            return None

    attempts = parsed("attempts", parse_attempts, DEFAULT_ATTEMPTS)
    if attempts is not None:
        k = parsed("k", lambda t: parse_k(t, attempts), default_k(attempts))
        if not text["k"]:
            check.hints["k"] = f"default {default_k(attempts)}"
    else:
        k = None
    require = parsed("require", parse_require, None)
    if not text["require"]:
        check.hints["require"] = "no gate"
    check.confidence = parsed("confidence", parse_confidence, None)
    if not text["confidence"]:
        check.hints["confidence"] = (
            f"intervals at {DEFAULT_CONFIDENCE:g}; the gate is the point gate"
        )
    elif check.confidence is not None:
        check.hints["confidence"] = CONFIDENT_GATE_SHORT if text["require"] else "no gate to read"
    concurrency = parsed("concurrency", parse_concurrency, DEFAULT_CONCURRENCY)
    timeout = parsed("timeout", parse_timeout, DEFAULT_TIMEOUT)
    version = None
    if not text["version"]:
        check.errors["version"] = "required: the exact version number"
    else:
        version = parsed("version", parse_version, None)
    if not text["agent"]:
        check.errors["agent"] = "required"

    stack = text["stack"] or None
    stack_problem = address_problem(stack, STACK_CREDENTIALS) if stack else None
    if stack_problem:
        check.errors["stack"] = stack_problem
    elif stack:
        check.hints["stack"] = "agents are looked up on the stack"
    else:
        check.hints["stack"] = "none: local agents file"

    key = str(values.get("key") or "")  # untrimmed: a stray space is a problem of the key's
    key_error = key_problem(key) if key else None
    if key_error:
        check.errors["key"] = key_error

    _check_cases(text["cases"], completion_only, check)
    if not stack:
        _check_local_agent(text["agents"], text["agent"], version, check)
    elif text["agents"]:
        check.hints["agents"] = "not used with a stack"
    _check_baseline(text["baseline"], version, check)

    if check.errors:
        return check
    assert version is not None  # no error: the version was given and parsed
    check.settings = Settings(
        agent=text["agent"],
        version=version,
        cases_path=str(Path(text["cases"]).expanduser()),
        attempts=attempts,
        k=k,
        completion_only=completion_only,
        require=require,
        concurrency=concurrency,
        timeout=timeout,
        stack=stack,
        agents_path=str(Path(text["agents"]).expanduser())
        if text["agents"] and not stack
        else None,
        confidence=check.confidence,
    )
    return check


def _check_baseline(text: str, version: int | None, check: FormCheck) -> None:
    """An optional version to compare against: a version like the other, and not the same one."""
    if not text:
        check.hints["baseline"] = "none: one version"
        return
    try:
        baseline = parse_version(text)
    except InputError as exc:
        check.errors["baseline"] = str(exc)
        return
    if baseline == version:
        check.errors["baseline"] = f"must differ from the version ({version})"
    elif check.versions and baseline not in check.versions:
        listed = ", ".join(str(v) for v in check.versions)
        check.errors["baseline"] = f"no version {baseline} (versions: {listed})"
    else:
        check.baseline = baseline
        check.hints["baseline"] = f"runs v{baseline} beside it, then compares (A: v{baseline})"


def _check_cases(path_text: str, completion_only: bool, check: FormCheck) -> None:
    if not path_text:
        check.errors["cases"] = "required: a .toml or .jsonl cases file"
        return
    try:
        cases = _cached(
            ("cases", completion_only),
            Path(path_text).expanduser(),
            lambda p: load_cases(p, completion_only=completion_only),
        )
    except InputError as exc:
        check.errors["cases"] = str(exc)
        return
    check.hints["cases"] = f"{len(cases)} case{'s' if len(cases) != 1 else ''}"


def _check_local_agent(path_text: str, agent: str, version: int | None, check: FormCheck) -> None:
    """The agent and version must be in the local agents file (no stack given)."""
    from passk_tui.targets.agents_file import find_agents_file, load_agents

    try:
        path = find_agents_file(Path(path_text).expanduser() if path_text else None)
        agents = _cached(("agents",), path, load_agents)
    except InputError as exc:
        check.errors["agents"] = str(exc)
        return
    check.hints["agents"] = f"{path}: {', '.join(agents) or 'no agents'}"
    if not agent:
        return
    versions = agents.get(agent)
    if versions is None:
        check.errors["agent"] = f"not in {path} (agents: {', '.join(agents) or 'none'})"
        return
    check.versions = list(versions)
    listed = ", ".join(str(v) for v in versions)
    if version is not None and version not in versions:
        check.errors["version"] = f"agent {agent!r} has no version {version} (versions: {listed})"
    elif "version" not in check.errors:
        check.hints["version"] = f"versions: {listed}"


_CACHE: dict[tuple[Hashable, ...], Any] = {}


def _stamp(path: Path) -> tuple[Hashable, ...]:
    """What identifies a file's content cheaply, so typing does not re-read unchanged files."""
    try:
        info = os.stat(path)
    except OSError:
        return (str(path), None)
    return (str(path.resolve()), info.st_mtime_ns, info.st_size)


def _cached(kind: tuple[Hashable, ...], path: Path, load: Callable[[Path], Any]) -> Any:
    """``load(path)``, reused while the file is unchanged; errors are not cached."""
    key = (*kind, *_stamp(path))
    if key not in _CACHE:
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = load(path)
    return _CACHE[key]
