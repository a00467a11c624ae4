"""From flags and environment to an evaluation's settings, cases and target, for both faces."""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from passk_tui import demo as demo_module
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.price import Price, parse_money, parse_price
from passk_tui.core.inputs.schema import FIELDS, Resume, flag_name
from passk_tui.core.inputs.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_CONCURRENCY,
    DEFAULT_TIMEOUT,
    Settings,
    default_k,
    parse_agent_name,
    parse_attempts,
    parse_concurrency,
    parse_confidence,
    parse_k,
    parse_label,
    parse_max_attempts,
    parse_precision,
    parse_require,
    parse_timeout,
    parse_version,
)
from passk_tui.core.inputs.target_list import (
    MatrixTarget,
    matrix_targets,
    parse_agents,
    parse_versions,
)
from passk_tui.core.run.cases import Case, load_cases
from passk_tui.core.run.target import Target
from passk_tui.evaluations.cost_settings import PRICES, PriceProblem, price_pair
from passk_tui.targets.addresses import address_problem
from passk_tui.targets.scrub import key_problem

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
    """The verdict on settings given as text: per bad field its message, or the Settings.

    ``errors`` holds what is said beside a field (it names no flag: the field's label
    does); ``lines`` the CLI's one line for the same problem (the flag, then the same
    words). Both keep the order the fields are checked in: the CLI says the first.
    """

    errors: dict[str, str] = field(default_factory=dict)
    lines: dict[str, str] = field(default_factory=dict)
    settings: Settings | None = None
    #: Each valid field's value (its default when not given), the Settings or not.
    values: dict[str, object] = field(default_factory=dict)
    #: The stack key, checked (None: none given).
    key: str | None = None
    #: The version to run beside ``version`` and compare against (None: none given).
    baseline: int | None = None
    #: A matrix's targets, the first compared with each other (empty: one target alone).
    targets: list[MatrixTarget] = field(default_factory=list)
    #: The price given by the price in and out (None: none, or one of them is bad).
    price: Price | None = None

    def fail(self, name: str, message: str, line: str | None = None) -> None:
        """Record ``name``'s first problem (a later one for the same field is not said)."""
        if name not in self.errors:
            self.errors[name] = message
            self.lines[name] = line or message

    def first_line(self) -> str | None:
        """The CLI's line for the first bad field, or None when every field is valid."""
        return next(iter(self.lines.values()), None)


#: --baseline V beside several targets: the matrix already compares each with the first.
BASELINE_REFUSED = (
    "--baseline: not with several versions or agents: a matrix compares every target with the first"
)


def check_settings(
    texts: Mapping[str, str | bool | None],
    *,
    demo: bool = False,
    sources: Mapping[str, str] | None = None,
) -> SettingsCheck:
    """THE validator from text to Settings, for the flags, the Configure form and the API.

    ``texts`` maps a field (``agent``, ``version``, ``cases``, ``attempts``, ``k``,
    ``require``, ``max_attempts``, ``precision``, ``confidence``, ``concurrency``,
    ``timeout``, ``stack``, ``key``, ``agents``, ``baseline``, ``price_in``, ``price_out``,
    ``budget_runs``, ``budget_cost``; ``completion_only`` and ``family_wise``
    bools) to its text as given; None or absent is not given (its default). ``sources``
    names where a field came from when not its flag (``{"stack": "PASSK_STACK"}``).
    With ``demo`` the demo's agent, version and cases fill what is not given. Nothing is
    read or sent: the files and the stack are the lookups' (``evaluations.lookups``).
    """
    check = SettingsCheck()
    named = dict(sources or {})

    def text(name: str) -> str | None:
        value = texts.get(name)
        return None if value is None else str(value)

    def parsed(name: str, parse: Callable[[str], T], default: T) -> T | None:
        given = text(name)
        if given is None:
            check.values[name] = default
            return default
        try:
            check.values[name] = value = parse(given)
            return value
        except InputError as exc:
            source = named.get(name, flag_name(name))
            check.fail(name, str(exc), f"{source}: {exc}")
            return None

    attempts = parsed("attempts", parse_attempts, DEFAULT_ATTEMPTS)
    k = None
    max_attempts = None
    if attempts is not None:
        k = parsed("k", lambda t: parse_k(t, attempts), default_k(attempts))
    require = parsed("require", parse_require, None)
    if attempts is not None:
        max_attempts = parsed("max_attempts", lambda t: parse_max_attempts(t, attempts), None)
    precision = parsed("precision", parse_precision, None)
    if precision is not None:
        try:
            check_precision(precision, require or text("require"), bool(text("max_attempts")))
        except InputError as exc:
            message = str(exc).removeprefix("--precision").lstrip(": ")
            check.fail("precision", message, str(exc))
    concurrency = parsed("concurrency", parse_concurrency, DEFAULT_CONCURRENCY)
    timeout = parsed("timeout", parse_timeout, DEFAULT_TIMEOUT)
    stack = parsed("stack", parse_stack_address, None)
    if not demo:
        missing = [name for name in ("agent", "version", "cases") if text(name) is None]
        line = f"missing {', '.join(flag_name(n) for n in missing)} (or use --demo)"
        for name in missing:
            check.fail(name, REQUIRED[name], line)
    if demo and not text("agent"):
        agents: tuple[str, ...] | None = (demo_module.AGENT,)
    else:
        agents = parsed("agent", parse_agents, None)
    default_versions: tuple[int, ...] | None = (demo_module.VERSION,) if demo else None
    versions = parsed("version", parse_versions, default_versions)
    agent = agents[0] if agents else None
    version = versions[0] if versions else None
    check.values.update(agent=agent, version=version)
    if agents and versions:
        targets = matrix_targets(agents, versions)
        check.targets = targets if len(targets) > 1 else []
    confidence = parsed("confidence", parse_confidence, None)
    family_wise = check.values["family_wise"] = bool(texts.get("family_wise"))
    if family_wise and (text("require") is None or text("confidence") is None):
        check.fail(
            "family_wise", "needs require and confidence", f"--family-wise: {FAMILY_WISE_NEEDS}"
        )
    cases_path = text("cases")
    if demo and not cases_path:
        cases_path = str(demo_module.CASES)
    agents_path = text("agents")
    if demo and not agents_path:
        agents_path = None if stack else str(demo_module.AGENTS)
    check.key = parsed("key", parse_key, None)
    check.baseline = parsed("baseline", parse_version, None)
    if check.baseline is not None and check.targets:
        check.fail(
            "baseline",
            "not with several versions or agents (a matrix compares them all)",
            BASELINE_REFUSED,
        )
    if check.baseline is not None and check.baseline == version:
        check.fail(
            "baseline",
            f"must differ from the version ({version})",
            f"--baseline: must differ from --version ({version})",
        )
    price = None
    prices = {name: parsed(name, parse_price, None) for name in PRICES}
    if not check.errors.keys() & prices.keys():
        try:
            price = check.price = price_pair(prices["price_in"], prices["price_out"])
        except PriceProblem as exc:
            check.fail(exc.field, exc.message, str(exc))
    budget_runs = parsed("budget_runs", parse_attempts, None)
    budget_cost = parsed("budget_cost", parse_money, None)
    label = parsed("label", parse_label, None)
    # Not when a price is at fault (said at its field); whatever else is, the form shows it.
    unpriced = budget_cost is not None and price is None and stack is not None
    if unpriced and not check.errors.keys() & prices.keys():
        check.fail(
            "budget_cost",
            "needs prices (the price in and out)",
            "--budget-cost: needs prices (--price-in and --price-out)",
        )
    if check.errors:
        return check
    assert agent is not None and version is not None and cases_path is not None
    assert attempts is not None and k is not None
    assert concurrency is not None and timeout is not None
    check.settings = Settings(
        agent=agent,
        version=version,
        cases_path=cases_path,
        attempts=attempts,
        k=k,
        completion_only=bool(texts.get("completion_only")),
        require=require,
        concurrency=concurrency,
        timeout=timeout,
        stack=stack,
        agents_path=agents_path,
        max_attempts=max_attempts,
        precision=precision,
        confidence=confidence,
        price=price,
        budget_runs=budget_runs,
        budget_cost=budget_cost,
        family_wise=family_wise,
        label=label,
    )
    return check


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
    check = check_settings(texts, demo=bool(args.demo), sources=sources)
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


#: Why --family-wise alone is refused: it sets the confident gate's promise.
FAMILY_WISE_NEEDS = (
    "needs --require and --confidence (it makes the confident gate's promise the whole suite's)"
)


def check_precision(precision: float | None, require: object, adaptive: bool) -> None:
    """--precision says when an adaptive case without a gate is decided: refused anywhere else."""
    if precision is None:
        return
    if not adaptive:
        raise InputError("--precision needs --max-attempts (it says when an adaptive case stops)")
    if require is not None:
        raise InputError(
            "--precision and --require: with --require a case is decided by the gate; "
            "give one of them"
        )


#: What an address with a user or password in it is told (``targets.addresses``).
STACK_CREDENTIALS = (
    "put no user or password in the stack address; give the key with PASSK_KEY (or --key)"
)


def parse_stack_address(text: str) -> str:
    """The stack address, checked before anything is stored or sent (InputError names no flag).

    Credentials in it are refused (``targets.addresses``): the stack takes a bearer key.
    """
    problem = address_problem(text, STACK_CREDENTIALS)
    if problem:
        raise InputError(problem)
    return text


def parse_key(key: str) -> str:
    """A stack key that can go into an HTTP header and is long enough to mask
    (``targets.scrub.key_problem``); the InputError never echoes the key."""
    problem = key_problem(key)
    if problem:
        raise InputError(problem)
    return key


#: The parsers the schema leaves to the validator: the agent's is checked by this name, and the
#: stack address by the network's rules (``targets.addresses``).
OUTSIDE_CORE_PARSERS: dict[str, Callable[[str], object]] = {
    "agent": parse_agent_name,
    "stack": parse_stack_address,
}


def load_suite(settings: Settings) -> list[Case]:
    return load_cases(Path(settings.cases_path), completion_only=settings.completion_only)


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


def make_target(settings: Settings, key: str | None, evaluation_id: str) -> Target:
    """The stack when an address is set, else the local agents file (bad names are InputError)."""
    if settings.stack:
        from passk_tui.targets.stack import StackTarget

        return StackTarget(
            settings.stack,
            key,
            settings.agent,
            settings.version,
            evaluation_id,
            settings.concurrency,
        )
    from passk_tui.targets.agents_file import find_agents_file, local_target

    explicit = Path(settings.agents_path) if settings.agents_path else None
    return local_target(
        find_agents_file(explicit),
        settings.agent,
        settings.version,
        concurrency=settings.concurrency,
        evaluation_id=evaluation_id,
        executor=settings.executor,
        ray_address=settings.ray_address,
    )


def resume_changes(args: argparse.Namespace) -> dict[str, object]:
    """The settings given again with --resume, validated; the session refuses measured changes.

    Only flags actually given appear. PASSK_STACK is not read here: a resume keeps
    the stored address unless --stack says the stack moved.
    """
    changes: dict[str, object] = {}
    if args.demo:
        changes["demo"] = True
    for f in FIELDS:
        given = getattr(args, f.name)
        if given is None or f.resume is Resume.NOT_STORED:
            continue
        name = f.setting or f.name
        parse = f.parse or OUTSIDE_CORE_PARSERS.get(f.name)
        if f.switch:
            if given:
                changes[name] = True
        elif parse is None:
            changes[name] = given  # a path, resolved by the session
        else:
            changes[name] = flag(f.flag.removeprefix("--"), given, parse, None)
    changes.update(executor_settings(args, os.environ))
    return changes


def matrix_resume_changes(args: argparse.Namespace) -> dict[str, object]:
    """The flags given again with a matrix's --resume, but its lists of agents and versions
    (checked against the group's targets apart: ``evaluations.matrix.resume_matrix``)."""
    return resume_changes(argparse.Namespace(**{**vars(args), "agent": None, "version": None}))
