"""From flags and environment to an evaluation's settings, cases and target, for both faces."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from passk_tui import demo
from passk_tui.core.errors import InputError
from passk_tui.core.run.cases import Case, load_cases
from passk_tui.core.run.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_CONCURRENCY,
    DEFAULT_TIMEOUT,
    Settings,
    default_k,
    parse_attempts,
    parse_concurrency,
    parse_k,
    parse_max_attempts,
    parse_precision,
    parse_require,
    parse_timeout,
    parse_version,
    parse_whole_number,
)
from passk_tui.core.run.target import Target
from passk_tui.core.stats.intervals import parse_confidence
from passk_tui.core.text.terminal_text import escape, first_unsafe
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


def settings_from_args(args: argparse.Namespace, env: Mapping[str, str]) -> Settings:
    """Validate every flag (nothing is loaded or started); InputError names the flag."""
    attempts = flag("attempts", args.attempts, parse_attempts, DEFAULT_ATTEMPTS)
    k = flag("k", args.k, lambda t: parse_k(t, attempts), default_k(attempts))
    require = flag("require", args.require, parse_require, None)
    max_attempts = flag(
        "max-attempts", args.max_attempts, lambda t: parse_max_attempts(t, attempts), None
    )
    precision = flag("precision", args.precision, parse_precision, None)
    check_precision(precision, require, max_attempts is not None)
    concurrency = flag("concurrency", args.concurrency, parse_concurrency, DEFAULT_CONCURRENCY)
    timeout = flag("timeout", args.timeout, parse_timeout, DEFAULT_TIMEOUT)
    stack = stack_address(args, env)
    if args.demo:
        agent = parse_agent(args.agent) if args.agent else demo.AGENT
        version = flag("version", args.version, parse_version, demo.VERSION)
        cases_path = args.cases or str(demo.CASES)
        agents_path = args.agents or (None if stack else str(demo.AGENTS))
    else:
        missing = [f"--{n}" for n in ("agent", "version", "cases") if getattr(args, n) is None]
        if missing:
            raise InputError(f"missing {', '.join(missing)} (or use --demo)")
        agent = parse_agent(args.agent)
        version = flag("version", args.version, parse_version, 0)
        cases_path = args.cases
        agents_path = args.agents
    return Settings(
        agent=agent,
        version=version,
        cases_path=cases_path,
        attempts=attempts,
        k=k,
        completion_only=bool(args.completion_only),
        require=require,
        concurrency=concurrency,
        timeout=timeout,
        stack=stack,
        agents_path=agents_path,
        max_attempts=max_attempts,
        precision=precision,
        confidence=flag("confidence", args.confidence, parse_confidence, None),
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


#: Longest agent id or name taken from --agent.
MAX_AGENT_CHARS = 200


def parse_agent(text: str) -> str:
    """An agent id or name: one line of text, not absurdly long; InputError names --agent."""
    if not text.strip():
        raise InputError("--agent: must not be empty")
    if len(text) > MAX_AGENT_CHARS:
        raise InputError(f"--agent: at most {MAX_AGENT_CHARS} characters, got {len(text):,}")
    unsafe = first_unsafe(text)
    if unsafe is not None:
        raise InputError(f"--agent: holds a control character ({escape(unsafe)})")
    return text


#: What an address with a user or password in it is told (``core.addresses``).
STACK_CREDENTIALS = (
    "put no user or password in the stack address; give the key with PASSK_KEY (or --key)"
)


def parse_stack_url(text: str, source: str = "--stack") -> str:
    """The stack address, checked before anything is stored or sent; InputError names ``source``.

    Credentials in it are refused (``core.addresses``): the stack takes a bearer key.
    """
    problem = address_problem(text, STACK_CREDENTIALS)
    if problem:
        raise InputError(f"{source}: {problem}")
    return text


def stack_address(args: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    """The validated --stack, else PASSK_STACK, else None."""
    if args.stack:
        return parse_stack_url(args.stack)
    if env.get("PASSK_STACK"):
        return parse_stack_url(env["PASSK_STACK"], "PASSK_STACK")
    return None


def load_suite(settings: Settings) -> list[Case]:
    return load_cases(Path(settings.cases_path), completion_only=settings.completion_only)


def stack_key(args: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    """The stack key: the flag if given, else PASSK_KEY (preferred: it stays out of `ps`).

    A key that cannot go into an HTTP header or is too short to mask
    (``targets.scrub.key_problem``) is bad input, said without echoing the key.
    """
    source = "--key" if args.key else "PASSK_KEY"
    key = args.key or env.get("PASSK_KEY") or None
    problem = None if key is None else key_problem(key)
    if problem:
        raise InputError(f"{source}: {problem}")
    return key


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
    )


def resume_changes(args: argparse.Namespace) -> dict[str, object]:
    """The settings given again with --resume, validated; the session refuses measured changes.

    Only flags actually given appear. PASSK_STACK is not read here: a resume keeps
    the stored address unless --stack says the stack moved.
    """
    changes: dict[str, object] = {}
    if args.demo:
        changes["demo"] = True
    if args.agent is not None:
        changes["agent"] = parse_agent(args.agent)
    if args.version is not None:
        changes["version"] = flag("version", args.version, parse_version, 0)
    if args.cases is not None:
        changes["cases_path"] = args.cases
    if args.attempts is not None:
        changes["attempts"] = flag("attempts", args.attempts, parse_attempts, DEFAULT_ATTEMPTS)
    if args.k is not None:
        # Any whole number will do: the session refuses a k that differs from the stored one.
        changes["k"] = flag("k", args.k, parse_whole_number, 0)
    if args.completion_only is not None:
        changes["completion_only"] = bool(args.completion_only)
    if args.require is not None:
        changes["require"] = flag("require", args.require, parse_require, None)
    if args.max_attempts is not None:
        # Checked against the stored attempts by the session.
        changes["max_attempts"] = flag("max-attempts", args.max_attempts, parse_attempts, 0)
    if args.precision is not None:
        changes["precision"] = flag("precision", args.precision, parse_precision, None)
    if args.confidence is not None:
        changes["confidence"] = flag("confidence", args.confidence, parse_confidence, None)
    if args.concurrency is not None:
        changes["concurrency"] = flag(
            "concurrency", args.concurrency, parse_concurrency, DEFAULT_CONCURRENCY
        )
    if args.timeout is not None:
        changes["timeout"] = flag("timeout", args.timeout, parse_timeout, DEFAULT_TIMEOUT)
    if args.stack is not None:
        changes["stack"] = parse_stack_url(args.stack)
    if args.agents is not None:
        changes["agents_path"] = args.agents
    return changes
