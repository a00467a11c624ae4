"""From flags, the form, ``evaluate()`` keywords and the environment to an evaluation's
settings (``validate``: one validator for every face), cases and target."""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from passk_tui import demo as demo_module
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.price import Price
from passk_tui.core.inputs.schema import BY_NAME, FIELDS, Group, Origin, Resume, Worded, flag_name
from passk_tui.core.inputs.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_CONCURRENCY,
    DEFAULT_TIMEOUT,
    Settings,
    check_k,
    check_max_attempts,
    default_k,
    parse_agent_name,
)
from passk_tui.core.inputs.target_list import (
    MatrixTarget,
    matrix_targets,
    parse_agents,
    parse_versions,
)
from passk_tui.core.inputs.typed import typed_value
from passk_tui.evaluations.cost_settings import PRICES, PriceProblem, price_pair, unpriced_budget
from passk_tui.targets.addresses import parse_stack_address
from passk_tui.targets.scrub import parse_key

T = TypeVar("T")


def flag(name: str, text: str | None, parse: Callable[[str], T], default: T) -> T:
    """Parse one flag's text, naming the flag in the error."""
    if text is None:
        return default
    try:
        return parse(text)
    except InputError as exc:
        raise InputError(f"--{name}: {exc}") from None


#: What the form says beside an empty required field (the CLI says ``missing --agent, ...``).
REQUIRED = {
    "agent": "required",
    "version": "required: the exact version number",
    "cases": "required: a .toml or .jsonl cases file",
}


@dataclass
class SettingsCheck:
    """The verdict on settings as given: per bad field its message, or the Settings.

    ``errors`` holds what is said beside a field (it names no field: the field's label
    does); ``lines`` the one line for the same problem in the words of whoever gave it
    (``origin``: the flag, the keyword or the label, then the same words). Both keep the
    order the fields are checked in: the first is said.
    """

    #: Each field's value as given (text or typed; None: not given).
    given_values: Mapping[str, object] = field(default_factory=dict)
    origin: Origin = Origin.CLI
    #: Where a field came from when not from ``origin`` (``{"stack": "PASSK_STACK"}``).
    sources: Mapping[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    lines: dict[str, str] = field(default_factory=dict)
    settings: Settings | None = None
    #: Each valid field's value (its default when not given), the Settings or not.
    values: dict[str, Any] = field(default_factory=dict)
    #: The stack key, checked (None: none given).
    key: str | None = None
    #: The version to run beside ``version`` and compare against (None: none given).
    baseline: int | None = None
    #: A matrix's targets, the first compared with each other (empty: one target alone).
    targets: list[MatrixTarget] = field(default_factory=list)
    #: The price given by the price in and out (None: none, or one of them is bad).
    price: Price | None = None

    def given(self, name: str) -> object:
        """Field ``name``'s value as given; None when not given (an unticked switch too)."""
        value = self.given_values.get(name)
        return None if value is None or value is False else value

    def take(
        self, name: str, default: Any = None, parse: Callable[[Any], Any] | None = None
    ) -> Any:
        """Field ``name``'s value (``default`` when not given), taken by ``parse`` or as its
        field takes it (``typed_value``); None, and the problem recorded, when bad."""
        value = self.given(name)
        if value is None:
            self.values[name] = default
            return default
        try:
            taken = typed_value(BY_NAME[name], value) if parse is None else parse(value)
        except InputError as exc:
            self.fail(name, str(exc))
            return None
        self.values[name] = taken
        return taken

    def called(self, name: str) -> str:
        """What the caller calls field ``name`` (``--max-attempts``, ``max_attempts``...)."""
        return self.sources.get(name) or BY_NAME[name].called(self.origin)

    def fail(self, name: str, message: str, line: Worded | None = None) -> None:
        """Record ``name``'s first problem (a later one for the same field is not said):
        ``message`` beside it, and ``line`` (default: its name, then ``message``)."""
        if name not in self.errors:
            self.errors[name] = message
            self.lines[name] = line(self.called) if line else f"{self.called(name)}: {message}"

    def first_line(self) -> str | None:
        """The line for the first bad field, or None when every field is valid."""
        return next(iter(self.lines.values()), None)


#: --baseline V beside several targets: the matrix already compares each with the first.
MATRIX_COMPARES = (
    "not with several versions or agents: a matrix compares every target with the first"
)
BASELINE_REFUSED = f"--baseline: {MATRIX_COMPARES}"


def validate(
    values: Mapping[str, object],
    origin: Origin = Origin.CLI,
    *,
    demo: bool = False,
    sources: Mapping[str, str] | None = None,
) -> SettingsCheck:
    """THE validator, for the flags, the Configure form, the Python API and a resume.

    ``values`` maps a field's name (``core.inputs.schema``) to its value: text, parsed by the
    field's parser (a flag, the form), or typed (``evaluate(attempts=5)``), held to the same
    rules (``core.inputs.typed``); None or absent is not given (its default). A bad one is
    named as ``origin`` calls it, or as ``sources`` says (``{"stack": "PASSK_STACK"}``).
    With ``demo`` the demo's agent, version and cases fill what is not given. Nothing is
    read or sent: the files and the stack are the lookups' (``evaluations.lookups``).
    """
    check = SettingsCheck(values, origin, dict(sources or {}))
    attempts = check.take("attempts", DEFAULT_ATTEMPTS)
    if attempts is None:  # what is checked against the attempts is not checked
        check.values.update(k=None, max_attempts=None)
    else:
        check.take("k", default_k(attempts), lambda v: check_k(_whole(v), attempts))
    check.take("require")
    if attempts is not None:
        check.take("max_attempts", None, lambda v: check_max_attempts(_whole(v), attempts))
    _check_precision(check)
    check.take("concurrency", DEFAULT_CONCURRENCY)
    check.take("timeout", DEFAULT_TIMEOUT)
    stack = check.take("stack", None, parse_stack_address)
    _check_target(check, demo)
    check.take("confidence")
    family_wise = check.values["family_wise"] = bool(check.given("family_wise"))
    if family_wise and (check.given("require") is None or check.given("confidence") is None):
        check.fail(
            "family_wise",
            "needs require and confidence",
            lambda n: f"{n('family_wise')}: {family_wise_needs(n)}",
        )
    cases_path = check.given("cases")
    check.values["cases"] = str(demo_module.CASES) if demo and not cases_path else cases_path
    agents_path = check.given("agents")
    if demo and not agents_path:
        agents_path = None if stack else str(demo_module.AGENTS)
    check.values["agents"] = agents_path
    check.key = check.take("key", None, parse_key)
    _check_baseline(check)
    prices = {name: check.take(name) for name in PRICES}
    if not check.errors.keys() & prices.keys():
        try:
            check.price = price_pair(prices["price_in"], prices["price_out"])
        except PriceProblem as exc:
            check.fail(exc.field, exc.message, exc.line)
    # Every other setting (the budgets first, as the form shows them): by its own rules.
    for f in sorted(FIELDS, key=lambda f: f.group is not Group.MONEY):
        stored = f.setting is not None and f.resume is not Resume.NOT_STORED
        if stored and f.name not in check.values:
            check.take(f.name, False if f.switch else None)
    # Not when a price is at fault (said at its field); whatever else is, the form shows it.
    unpriced = unpriced_budget(check.values, check.price) if stack else None
    if unpriced is not None and not check.errors.keys() & prices.keys():
        check.fail(unpriced.field, unpriced.message, unpriced.line)
    if not check.errors:
        check.settings = _settings(check)
    return check


def _check_precision(check: SettingsCheck) -> None:
    """--precision says when an adaptive case without a gate is decided: refused anywhere else."""
    if check.take("precision") is None:
        return
    if check.given("max_attempts") is None:
        check.fail(
            "precision",
            "needs --max-attempts (it says when an adaptive case stops)",
            lambda n: (
                f"{n('precision')} needs {n('max_attempts')} (it says when an adaptive case stops)"
            ),
        )
    elif check.given("require") is not None:
        check.fail(
            "precision",
            "and --require: with --require a case is decided by the gate; give one of them",
            lambda n: (
                f"{n('precision')} and {n('require')}: with {n('require')} a case is "
                "decided by the gate; give one of them"
            ),
        )


def _check_target(check: SettingsCheck, demo: bool) -> None:
    """The agent and version (lists of them: a matrix), required unless ``demo`` fills them."""
    if not demo:
        missing = [name for name in ("agent", "version", "cases") if check.given(name) is None]
        demo_too = " (or use --demo)" if check.origin is Origin.CLI else ""
        for name in missing:
            check.fail(
                name, REQUIRED[name], lambda n: f"missing {', '.join(map(n, missing))}{demo_too}"
            )
    if demo and not check.given("agent"):
        agents: tuple[str, ...] | None = (demo_module.AGENT,)
    else:
        agents = check.take("agent", None, parse_agents)
    default_versions: tuple[int, ...] | None = (demo_module.VERSION,) if demo else None
    versions = check.take("version", default_versions, _versions)
    check.values.update(
        agent=agents[0] if agents else None, version=versions[0] if versions else None
    )
    if agents and versions:
        targets = matrix_targets(agents, versions)
        check.targets = targets if len(targets) > 1 else []


def _check_baseline(check: SettingsCheck) -> None:
    """A baseline: one version beside one target, not the same version again."""
    check.baseline = check.take("baseline")
    version = check.values["version"]
    if check.baseline is not None and check.targets:
        check.fail(
            "baseline",
            "not with several versions or agents (a matrix compares them all)",
            lambda n: (
                f"{n('baseline')}: not with several versions or agents: a matrix "
                "compares every target with the first"
            ),
        )
    if check.baseline is not None and check.baseline == version:
        check.fail(
            "baseline",
            f"must differ from the version ({version})",
            lambda n: f"{n('baseline')}: must differ from {n('version')} ({version})",
        )


def _whole(given: object) -> int:
    """A whole number, text or typed (k's parser is the bare whole number's)."""
    value: int = typed_value(BY_NAME["k"], given)
    return value


def family_wise_needs(called: Callable[[str], str]) -> str:
    """Why --family-wise alone is refused (it sets the confident gate's promise)."""
    return (
        f"needs {called('require')} and {called('confidence')} "
        "(it makes the confident gate's promise the whole suite's)"
    )


#: The same, in the flags' words.
FAMILY_WISE_NEEDS = family_wise_needs(flag_name)


def _versions(given: object) -> tuple[int, ...]:
    """The versions: a list's text (``1,2,3``) or one given typed."""
    if isinstance(given, str):
        return parse_versions(given)
    return (typed_value(BY_NAME["version"], given),)


def _settings(check: SettingsCheck) -> Settings:
    """The Settings of a check with no error: each field's value by its Settings attribute
    (one not given keeps the attribute's default), and the price."""
    taken = {
        f.setting: check.values[f.name]
        for f in FIELDS
        if f.setting is not None and check.values.get(f.name) is not None
    }
    return Settings(**taken, price=check.price)


def settings_from_args(args: argparse.Namespace, env: Mapping[str, str]) -> Settings:
    """Validate every flag (nothing is loaded or started); InputError names the flag."""
    return checked_from_args(args, env)[0]


def checked_from_args(
    args: argparse.Namespace, env: Mapping[str, str]
) -> tuple[Settings, list[MatrixTarget]]:
    """The settings (the first target's) and a matrix's targets (empty: one target), every
    flag validated; InputError names the flag."""
    texts: dict[str, str | bool | None] = {
        f.name: getattr(args, f.name) for f in FIELDS if f.resume is not Resume.NOT_STORED
    }
    sources: dict[str, str] = {}
    texts["stack"] = args.stack or None
    if texts["stack"] is None and env.get("PASSK_STACK"):
        texts["stack"], sources["stack"] = env["PASSK_STACK"], "PASSK_STACK"
    check = validate(texts, demo=bool(args.demo), sources=sources)
    line = check.first_line()
    if line is not None:
        raise InputError(line)
    assert check.settings is not None
    return replace(check.settings, **executor_settings(args, env)), check.targets


#: Where local `command` agents may run (``--executor``).
EXECUTORS = ("local", "ray")


def executor_settings(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    """``--executor`` and ``--ray-address`` (or RAY_ADDRESS) read; {} when neither is given.

    Ray asked for where it is not installed is bad input naming what to install."""
    found: dict[str, Any] = {}
    if args.executor is not None:
        if args.executor not in EXECUTORS:
            raise InputError(f"--executor: must be local or ray, got {args.executor!r}")
        found["executor"] = args.executor
    if found.get("executor") == "ray":
        if importlib.util.find_spec("ray") is None:
            raise InputError("--executor ray: Ray is not installed: pip install 'passk-tui[ray]'")
        found["ray_address"] = args.ray_address or env.get("RAY_ADDRESS") or None
    elif args.ray_address is not None:
        raise InputError("--ray-address: goes only with --executor ray")
    return found


#: The parsers the schema leaves to the validator: the agent's is checked by this name, and the
#: stack address by the network's rules (``targets.addresses``).
OUTSIDE_CORE_PARSERS: dict[str, Callable[[str], object]] = {
    "agent": parse_agent_name,
    "stack": parse_stack_address,
}


def stack_key(args: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    """The stack key: the flag if given, else PASSK_KEY (preferred: it stays out of `ps`).

    A key that cannot go into an HTTP header or is too short to mask
    (``targets.scrub.key_problem``) is bad input, said without echoing the key.
    """
    source = "--key" if args.key else "PASSK_KEY"
    key: str | None = args.key or env.get("PASSK_KEY") or None
    if key is None:
        return None
    try:
        return parse_key(key)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


def resume_changes(args: argparse.Namespace) -> dict[str, object]:
    """The settings given again with --resume, validated; the session refuses measured changes.

    Only flags actually given appear. PASSK_STACK is not read here: a resume keeps
    the stored address unless --stack says the stack moved.
    """
    changes = given_again(vars(args), Origin.CLI)
    if args.demo:
        changes["demo"] = True
    changes.update(executor_settings(args, os.environ))
    return changes


def given_again(values: Mapping[str, object], origin: Origin) -> dict[str, object]:
    """The stored settings given again to a resume, by Settings attribute (a price by its
    field), each taken as the validator takes it and a bad one named in ``origin``'s words."""
    changes: dict[str, object] = {}
    for f in FIELDS:
        value = values.get(f.name)
        if value is None or value is False or f.resume is Resume.NOT_STORED:
            continue
        parse = OUTSIDE_CORE_PARSERS.get(f.name)
        try:
            taken = parse(value) if parse and isinstance(value, str) else typed_value(f, value)
        except InputError as exc:
            raise InputError(f"{f.called(origin)}: {exc}") from None
        changes[f.setting or f.name] = taken
    return changes


def matrix_resume_changes(args: argparse.Namespace) -> dict[str, object]:
    """The flags given again with a matrix's --resume, but its lists of agents and versions
    (checked against the group's targets apart: ``evaluations.matrix.resume_matrix``)."""
    return resume_changes(argparse.Namespace(**{**vars(args), "agent": None, "version": None}))
