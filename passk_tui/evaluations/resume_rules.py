"""What a resume may change and how it is checked: what is measured stays what it was."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from passk_tui import demo
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.agent_definition import (
    IMPORT,
    Definition,
    not_runnable,
    python_only,
    same_measure,
)
from passk_tui.core.inputs.agent_definition import changes as definition_changes
from passk_tui.core.inputs.schema import Resume, resumed
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.sampling import sampling_policy
from passk_tui.evaluations.cost_settings import PRICES, kept_price
from passk_tui.store import StoredEvaluation

#: The settings that say what is measured: a resume may not change them.
MEASURED = resumed(Resume.MEASURED)
#: What an extension may raise (never lower): more attempts measure more of the same.
GROWING = resumed(Resume.GROWING)
#: The settings an adaptive evaluation's stop rule reads: given anew, they may re-decide cases.
STOP_RULE = resumed(Resume.STOP_RULE)
#: Budgets hold across resumes ("at most N Runs, resumes included"): given anew, one may
#: lower its cap (or set one), never raise it, or each resume could spend N again.
BUDGETS = resumed(Resume.BUDGET)
#: The settings a resume may give anew.
# --executor and --ray-address are read beside the table (settings_text.executor_settings).
RUNNING = frozenset({*resumed(Resume.RUNNING), *STOP_RULE, *BUDGETS, "executor", "ray_address"})


def check_same_definition(
    stored: StoredEvaluation, definition: Definition, changes_given: Mapping[str, Any]
) -> None:
    """A resume runs what the evaluation measured, or nothing: InputError when the agent now
    resolves to another definition (``--agents`` another file, or its file edited). An
    evaluation stored before definitions were has none to hold it to: it resumes unchecked;
    so does one that ran nothing yet (``ran_nothing``), which takes the new definition."""
    if stored.definition is None or ran_nothing(stored):
        return
    if same_measure(stored.definition, definition):
        return
    s = stored.settings
    given = changes_given.get("agents_path")
    what = f"--agents {given}" if given is not None else f"{s.agent} v{s.version} now"
    changed = "; ".join(definition_changes(stored.definition, definition))
    raise InputError(
        f"--resume {stored.id}: {what} would change what is measured ({changed}); "
        "start a new evaluation instead"
    )


def refuse_callable(stored: StoredEvaluation) -> None:
    """A Python callable's evaluation with attempts left: the command line has no callable to
    run them with, so it says where they can be run (its results show as any others do)."""
    why = python_only(stored.id, stored.definition)
    if why is not None:
        raise InputError(f"--resume {stored.id}: {why}")


def refuse_imported(stored: StoredEvaluation) -> None:
    """An imported evaluation has nothing to run: ``--resume`` of it is bad input (exit 2);
    ``passk-tui import`` of its files shows it again with the settings given then."""
    if (stored.definition or {}).get("kind") == IMPORT:
        raise InputError(f"--resume {stored.id}: {not_runnable(stored.id, stored.definition)}")


def ran_nothing(stored: StoredEvaluation) -> bool:
    """No attempt was recorded, not even a withdrawn one: nothing was measured yet (it failed
    to start: a program missing, a key refused), so what it runs may still be changed."""
    return not stored.records and not stored.withdrawn


def check_rule_kept(
    stored: StoredEvaluation, settings: Settings, changes: Mapping[str, Any], most_left: int
) -> None:
    """Refuse a stop rule given anew (``--confidence``, ``--require``, ``--precision``) that would
    make an adaptive evaluation start Runs its stored rule would not, unless ``--max-attempts``
    says so too: re-deciding its cases at 99% ran 874 more Runs that nobody asked for.

    The intervals stay valid either way (the confidence sequence holds under any stopping
    rule); what is refused is spending Runs silently. Given with ``--max-attempts`` (the
    stored cap will do), the Runs are asked for in words.
    """
    if not settings.adaptive or changes.get("max_attempts") is not None:
        return
    current = stored.settings
    given = [n for n in STOP_RULE if n in changes and changes[n] != getattr(current, n)]
    if not given:
        return
    kept = replace(settings, **{n: getattr(current, n) for n in given})
    before = sampling_policy(
        kept, len(stored.cases), stored.records, stored.retakes(), stored.in_flight
    ).most_left()
    if most_left <= before:
        return
    name = given[0]
    raise InputError(
        f"--resume {stored.id}: {STOP_RULE[name]} {_rule_text(changes[name])} would re-decide "
        f"this adaptive evaluation's cases (stored: {_rule_text(getattr(current, name))}) and "
        f"start up to {most_left - before:,} more Runs; to run them give --max-attempts "
        f"{settings.max_attempts} with it, else leave {STOP_RULE[name]} out"
    )


def _rule_text(value: Any) -> str:
    """A stop rule's setting as the user wrote it: 0.99, 0.8 (not 4/5), or not given."""
    if value is None:
        return "not given"
    return f"{float(value):g}"


def resumed_settings(stored: StoredEvaluation, changes: dict[str, Any]) -> Settings:
    """The stored settings with those given anew (``changes``, a copy: it is altered):
    InputError when one would change what is measured, shrink an extension, or give
    ``--precision`` where it has no meaning."""
    if changes.pop("demo", False):
        changes.setdefault("agent", demo.AGENT)
        changes.setdefault("version", demo.VERSION)
        changes.setdefault("cases_path", str(demo.CASES))
    if "cases_path" in changes:
        changes["cases_path"] = _resolved(changes["cases_path"], "--cases")
    if "agents_path" in changes and changes["agents_path"] is not None:
        changes["agents_path"] = _resolved(changes["agents_path"], "--agents")
    current = stored.settings
    for name, flag in MEASURED.items():
        if name in changes and changes[name] != getattr(current, name):
            raise InputError(
                f"--resume {stored.id}: {flag} {_shown(changes[name])} would change what is "
                f"measured (stored: {_shown(getattr(current, name))}); start a new evaluation "
                "instead"
            )
    if changes.get("stack") and current.stack is None:
        raise InputError(
            f"--resume {stored.id}: --stack would change what is measured (it ran on a local "
            "agent); start a new evaluation instead"
        )
    _check_budgets_kept(stored.id, current, changes)
    grown = _grown(stored.id, current, changes)
    priced = kept_price(stored.id, current, changes)
    unknown = set(changes) - RUNNING - set(MEASURED) - set(GROWING) - set(PRICES)
    if unknown:
        raise ValueError(f"not settings: {', '.join(sorted(unknown))}")
    running = {name: value for name, value in changes.items() if name in RUNNING}
    if current.stack is None or not running.get("stack"):
        running.pop("stack", None)
    given: dict[str, Any] = {**running, **grown, **priced}  # they share no name
    resumed = replace(current, **given)
    if stored.records and _extends(current, resumed):
        # More attempts after figures were seen: n is chosen by looking from now on.
        resumed = replace(resumed, extended=True)
    if resumed.precision is not None and (resumed.require is not None or not resumed.adaptive):
        raise InputError(
            f"--resume {stored.id}: --precision is for an adaptive evaluation without --require"
        )
    return resumed


def _check_budgets_kept(evaluation_id: str, current: Settings, changes: Mapping[str, Any]) -> None:
    """InputError when a budget given anew is larger than the stored one (``BUDGETS``)."""
    for name, flag in BUDGETS.items():
        given, kept = changes.get(name), getattr(current, name)
        if given is not None and kept is not None and given > kept:
            raise InputError(
                f"--resume {evaluation_id}: {flag} {_budget(given)} would raise its budget "
                f"(stored: {_budget(kept)}); a budget holds across resumes: start a new "
                "evaluation to spend more"
            )


def _budget(value: Any) -> str:
    """A budget as given: 12, or 0.5 (not 1/2)."""
    return str(value) if isinstance(value, int) else f"{float(value):g}"


def _grown(evaluation_id: str, current: Settings, changes: Mapping[str, Any]) -> dict[str, int]:
    """The attempts and cap an extension gives; fewer than stored (or a cap under the
    attempts) is InputError in one line."""
    grown = {name: changes[name] for name in GROWING if changes.get(name) is not None}
    for name, value in grown.items():
        stored = getattr(current, name)
        if stored is not None and value < stored:
            raise InputError(
                f"--resume {evaluation_id}: {GROWING[name]} {value} is fewer than the {stored} "
                "stored; an evaluation can only be extended"
            )
    attempts = grown.get("attempts", current.attempts)
    cap = grown.get("max_attempts", current.max_attempts)
    if cap is not None and cap < attempts:
        raise InputError(
            f"--resume {evaluation_id}: --max-attempts {cap} is below --attempts {attempts}"
        )
    return grown


def _extends(current: Settings, resumed: Settings) -> bool:
    """Whether the resume plans more attempts than were planned: more per case, or a cap
    (higher) where there was none (lower)."""
    if resumed.attempts > current.attempts:
        return True
    return resumed.max_attempts is not None and (
        current.max_attempts is None or resumed.max_attempts > current.max_attempts
    )


def _resolved(path: str, flag: str) -> str:
    """``path`` made absolute, as the stored one is; InputError for a name no file can have
    (a NUL, a lone surrogate), which the OS cannot even be asked about."""
    try:
        return str(Path(path).resolve())
    except (OSError, ValueError):
        raise InputError(f"{flag} {_shown(path)}: no file can have this name") from None


def _shown(value: Any) -> str:
    return "given" if value is True else "not given" if value is False else str(value)
