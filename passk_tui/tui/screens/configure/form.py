"""The configure form's model: field texts in, per-field errors and hints plus Settings out.

Pure Python (no Textual), so the rules are testable on their own. Every check is
the flags' own (``evaluations.settings_text.validate``); what the files and
the stack say is asked of ``evaluations.lookups``. This module adds the hints (the cost
fields' are ``cost_form``'s).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.schema import CONFIDENT_GATE_SHORT, Origin, form_fields
from passk_tui.core.inputs.settings import Settings, default_k
from passk_tui.core.inputs.target_list import MatrixTarget, target_labels
from passk_tui.core.reading.vocabulary import DEFAULT_CONFIDENCE
from passk_tui.evaluations.lookups import count_cases, local_agents
from passk_tui.evaluations.settings_text import validate
from passk_tui.tui.screens.configure.cost_form import check_cost

#: The text fields, in the order the screen shows them (the SWITCHES are checkboxes).
TEXT_FIELDS = tuple(f.name for f in form_fields() if not f.switch)

#: The yes/no fields, after the text fields.
SWITCHES = tuple(f.name for f in form_fields() if f.switch)

FormValues = dict[str, str | bool]


def blank_form() -> FormValues:
    """Every field empty: empty optional fields take their defaults."""
    values: FormValues = dict.fromkeys(TEXT_FIELDS, "")
    values.update(dict.fromkeys(SWITCHES, False))
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
    #: Several targets (a matrix: versions or agents listed with commas); empty: one.
    targets: list[MatrixTarget] = field(default_factory=list)
    #: The cost fields in a line (prices, budgets), for when they are folded away.
    cost: str = ""


def check_form(values: Mapping[str, str | bool]) -> FormCheck:
    """Validate every field; what needs the network (the stack's agents) is checked elsewhere."""
    check = FormCheck()
    # What was typed, trimmed (an Input holds stray spaces); an empty field is not given.
    text = {name: str(values.get(name, "") or "").strip() for name in TEXT_FIELDS}
    completion_only = bool(values.get("completion_only", False))
    given: dict[str, str | bool | None] = {name: value or None for name, value in text.items()}
    for name in ("cases", "agents"):
        if text[name]:
            given[name] = str(Path(text[name]).expanduser())
    if text["stack"]:
        given["agents"] = None  # not used with a stack
    given["key"] = str(values.get("key") or "") or None  # untrimmed: a space is the key's
    given["completion_only"] = completion_only
    given["family_wise"] = bool(values.get("family_wise", False))
    verdict = validate(given, Origin.FORM)
    check.errors.update(verdict.errors)
    parsed = verdict.values
    attempts = parsed.get("attempts")
    if not text["k"] and isinstance(attempts, int):
        check.hints["k"] = f"default {default_k(attempts)}"
    if not text["require"]:
        check.hints["require"] = "no gate"
    confidence = parsed.get("confidence")
    check.confidence = confidence if isinstance(confidence, float) else None
    if not text["confidence"]:
        check.hints["confidence"] = (
            f"intervals at {DEFAULT_CONFIDENCE:g}; the gate is the point gate"
        )
    elif check.confidence is not None:
        check.hints["confidence"] = CONFIDENT_GATE_SHORT if text["require"] else "no gate to read"
    if "stack" not in check.errors:
        check.hints["stack"] = (
            "agents are looked up on the stack" if text["stack"] else "none: local agents file"
        )

    version = parsed.get("version")
    version = version if isinstance(version, int) else None
    _check_cases(text["cases"], completion_only, check)
    check.targets = verdict.targets
    if not text["stack"] and verdict.targets:
        _check_local_targets(text["agents"], verdict.targets, check)
    elif not text["stack"]:
        _check_local_agent(text["agents"], text["agent"], version, check)
    elif text["agents"]:
        check.hints["agents"] = "not used with a stack"
    _check_baseline(text["baseline"], verdict.baseline, check)
    check.cost = check_cost(text, verdict, check.errors, check.hints)
    if not check.errors:
        check.settings = verdict.settings
    return check


def _check_baseline(text: str, baseline: int | None, check: FormCheck) -> None:
    """The validator's verdict on the baseline, then whether the agent has that version."""
    if not text:
        check.hints["baseline"] = "none: one version"
        return
    if baseline is None:
        return  # the validator said what is wrong
    if check.versions and baseline not in check.versions:
        listed = ", ".join(str(v) for v in check.versions)
        check.errors["baseline"] = f"no version {baseline} (versions: {listed})"
    else:
        check.baseline = baseline
        check.hints["baseline"] = f"runs v{baseline} beside it, then compares (A: v{baseline})"


def _check_local_targets(path_text: str, targets: list[MatrixTarget], check: FormCheck) -> None:
    """Each target of a matrix must be in the local agents file; the hint names them all."""
    for target in targets:
        _check_local_agent(path_text, target.agent, target.version, check)
    if not {"agent", "version", "agents"} & check.errors.keys():
        labels = ", ".join(target_labels(targets))
        check.hints["version"] = f"a matrix of {len(targets)}: {labels}; the first against each"


def _check_cases(path_text: str, completion_only: bool, check: FormCheck) -> None:
    if not path_text:
        return  # the validator said "required"
    try:
        count = count_cases(Path(path_text).expanduser(), completion_only)
    except InputError as exc:
        check.errors["cases"] = str(exc)
        return
    check.hints["cases"] = f"{count} case{'s' if count != 1 else ''}"


def _check_local_agent(path_text: str, agent: str, version: int | None, check: FormCheck) -> None:
    """The agent and version must be in the local agents file (no stack given)."""
    try:
        path, agents = local_agents(Path(path_text).expanduser() if path_text else None)
    except InputError as exc:
        check.errors["agents"] = str(exc)
        return
    check.hints["agents"] = f"{path}: {', '.join(agents) or 'no agents'}"
    if not agent or "agent" in check.errors:
        return
    versions = agents.get(agent)
    if versions is None:
        check.errors["agent"] = f"not in {path} (agents: {', '.join(agents) or 'none'})"
        return
    check.versions = versions
    listed = ", ".join(str(v) for v in versions)
    if version is not None and version not in versions:
        check.errors["version"] = f"agent {agent!r} has no version {version} (versions: {listed})"
    elif "version" not in check.errors:
        check.hints["version"] = f"versions: {listed}"
