"""The local agents file (``agents.toml``): finding it, validating it, and making a target from it.

The shape is the one the README shows::

    [agents.calc.versions.1]
    command = ["python3", "agents/calc.py"]
    [agents.calc.versions.2]
    openai = { base_url = "http://127.0.0.1:11434/v1", model = "qwen2.5:0.5b",
               system = "Answer with the number only.", api_key_env = "OPENAI_API_KEY" }

Every problem is an ``InputError`` (exit 2) whose one-line message names the file
and, where it applies, the line or the agent and version.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import positive_seconds
from passk_tui.core.inputs.price import Price, parse_price
from passk_tui.core.inputs.program import argv_problem
from passk_tui.core.inputs.settings import parse_whole_number
from passk_tui.core.inputs.toml_text import parse_toml
from passk_tui.core.sandbox.settings import SandboxSettings, parse_sandbox
from passk_tui.core.text.mentions import shorten
from passk_tui.targets.addresses import address_problem
from passk_tui.targets.conversing.tools_file import MAX_STEPS, ToolsFile, load_tools

if TYPE_CHECKING:
    from passk_tui.core.run.target import Target

#: The file name looked for in the working folder and in the user config folder.
AGENTS_FILE_NAME = "agents.toml"

_OPENAI_KEYS = ("base_url", "model", "system", "api_key_env", "params", "timeout")
_OPENAI_TEXT_KEYS = ("base_url", "model", "system", "api_key_env")
#: Body keys the target writes itself: `params` may set any other.
_OWN_BODY_KEYS = ("model", "messages")
_VERSION_KEY = re.compile(r"[0-9]+")
#: What a base_url with a user or password in it is told (``passk_tui.targets.addresses``).
_BASE_URL_CREDENTIALS = (
    "put no user or password in the address; give the key with api_key_env "
    "(the name of the environment variable that holds it)"
)


@dataclass(frozen=True, slots=True)
class OpenAISpec:
    """An OpenAI-compatible Chat Completions endpoint and the model to ask there."""

    base_url: str
    model: str
    system: str | None = None
    api_key_env: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    """Further Chat Completions body keys (temperature, max_tokens, seed, ...), passed as given."""
    timeout: float | None = None
    """Seconds per request; None: only the attempt's deadline bounds it."""


@dataclass(frozen=True, slots=True)
class AgentVersion:
    """One exact version of a local agent: a command to run or an endpoint to call.

    Exactly one of ``command`` and ``openai`` is set. ``folder`` is the agents
    file's folder (absolute), where a command runs.
    """

    agent: str
    version: int
    folder: Path
    command: tuple[str, ...] | None = None
    openai: OpenAISpec | None = None
    price: Price | None = None
    """``price = { input_per_mtok, output_per_mtok }``: what its tokens cost; None: not given."""
    sandbox: SandboxSettings | None = None
    """A `command` version's ``sandbox``: where it runs; None: on the host."""
    cpus: float = 1
    """CPUs each attempt asks a Ray cluster for (``--executor ray``)."""
    tools: ToolsFile | None = None
    """An `openai` version's ``tools = "tools.toml"``, read; None: the model has no tools."""
    max_steps: int = MAX_STEPS
    """Model requests a Turn may make while the model keeps calling tools."""

    def label(self, source: Path | str) -> str:
        """How messages name this version: ``agents.toml: agent 'calc' version 2``."""
        return f"{source}: agent {self.agent!r} version {self.version}"


def find_agents_file(explicit: Path | None) -> Path:
    """The agents file to use: ``explicit``, else ./agents.toml, else <user config>/agents.toml."""
    if explicit is not None:
        try:
            found = explicit.is_file()
        except OSError as exc:  # a name longer than the system takes
            raise InputError(f"{explicit}: cannot read: {exc.strerror or exc}") from None
        if not found:
            raise InputError(f"{explicit}: no such agents file")
        return explicit
    # Relative on purpose: messages then say "agents.toml: ..." as the user would.
    local = Path(AGENTS_FILE_NAME)
    if local.is_file():
        return local
    config = Path(platformdirs.user_config_dir("passk-tui"))
    configured = config / AGENTS_FILE_NAME
    if configured.is_file():
        return configured
    raise InputError(
        "no agents file: pass --agents PATH or create agents.toml "
        f"(looked in ./agents.toml and {configured})"
    )


def load_agents(path: Path) -> dict[str, dict[int, AgentVersion]]:
    """Read and validate an agents file: agent name -> version number -> AgentVersion."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    data = parse_toml(text, str(path))

    folder = path.resolve().parent
    _no_unknown_keys(data, ("agents",), f"{path}")
    agents_table = data.get("agents")
    if agents_table is None:
        raise InputError(f"{path}: no agents (expected [agents.NAME.versions.N] tables)")
    if not isinstance(agents_table, dict):
        raise InputError(f"{path}: 'agents' must be a table of agents")

    agents: dict[str, dict[int, AgentVersion]] = {}
    for name, agent_table in agents_table.items():
        where = f"{path}: agent {name!r}"
        if not isinstance(agent_table, dict):
            raise InputError(f"{where}: must be a table with a 'versions' table")
        _no_unknown_keys(agent_table, ("versions",), where)
        versions_table = agent_table.get("versions")
        if not isinstance(versions_table, dict) or not versions_table:
            raise InputError(f"{where}: no versions (expected [agents.{name}.versions.N])")
        versions: dict[int, AgentVersion] = {}
        for key, spec in versions_table.items():
            if not _VERSION_KEY.fullmatch(key):
                raise InputError(f"{where}: version {key!r} is not an integer")
            try:
                number = parse_whole_number(key)  # int() itself refuses 5,000 digits
            except InputError as exc:
                raise InputError(f"{where}: version {shorten(key)}: {exc}") from None
            if number in versions:
                raise InputError(f"{where}: version {number} is given twice")
            versions[number] = _parse_version(spec, name, number, folder, f"{where} version {key}")
        agents[name] = dict(sorted(versions.items()))
    return agents


def local_target(
    path: Path,
    agent: str,
    version: int,
    *,
    concurrency: int,
    evaluation_id: str = "",
    executor: str = "local",
    ray_address: str | None = None,
) -> Target:
    """The target for one exact local agent version; a missing agent or version is bad input.

    ``evaluation_id`` is what a `command` agent finds in PASSK_EVALUATION; with ``executor``
    'ray' a `command` agent, or an `openai` version's tools, run on the Ray cluster at
    ``ray_address`` (None: one started here)."""
    spec = find_version(path, agent, version)
    label = spec.label(path)
    if spec.command is not None:
        from passk_tui.targets.command import CommandTarget

        target = CommandTarget(
            spec.command,
            spec.folder,
            label=label,
            evaluation_id=evaluation_id,
            sandbox=spec.sandbox,
        )
        if executor != "ray":
            return target
        from passk_tui.targets.ray.target import RayCommandTarget

        return RayCommandTarget(target, address=ray_address, cpus=spec.cpus)
    assert spec.openai is not None
    from passk_tui.targets.conversing.tools import ToolBox
    from passk_tui.targets.openai import OpenAITarget

    tools = None if spec.tools is None else ToolBox(spec.tools)
    if tools is not None and executor == "ray":
        from passk_tui.targets.ray.checks import OnRay

        tools.elsewhere = OnRay(ray_address)  # the model is asked from here; its tools run there

    return OpenAITarget(
        base_url=spec.openai.base_url,
        model=spec.openai.model,
        system=spec.openai.system,
        api_key_env=spec.openai.api_key_env,
        params=spec.openai.params,
        request_timeout=spec.openai.timeout,
        concurrency=concurrency,
        label=label,
        tools=tools,
        max_steps=spec.max_steps,
    )


def find_version(path: Path, agent: str, version: int) -> AgentVersion:
    """One exact local agent version from the file; a missing agent or version is bad input."""
    agents = load_agents(path)
    versions = agents.get(agent)
    if versions is None:
        known = ", ".join(agents) or "none"
        raise InputError(f"{path}: no agent {agent!r} (agents: {known})")
    spec = versions.get(version)
    if spec is None:
        known = ", ".join(str(number) for number in versions)
        raise InputError(f"{path}: agent {agent!r} has no version {version} (versions: {known})")
    return spec


def _parse_version(spec: Any, agent: str, number: int, folder: Path, where: str) -> AgentVersion:
    """One ``[agents.NAME.versions.N]`` table, validated."""
    if not isinstance(spec, dict):
        raise InputError(f"{where}: must be a table with 'command' or 'openai'")
    _no_unknown_keys(
        spec, ("command", "openai", "price", "sandbox", "cpus", "tools", "max_steps"), where
    )
    price = _price(spec["price"], where) if "price" in spec else None
    has_command, has_openai = "command" in spec, "openai" in spec
    if has_command == has_openai:
        which = "both" if has_command else "neither"
        raise InputError(f"{where}: has {which} of 'command' and 'openai' (give exactly one)")
    if has_command:
        argv = spec["command"]
        if (
            not isinstance(argv, list)
            or not argv
            or not all(isinstance(part, str) for part in argv)
            or not argv[0]
        ):
            raise InputError(f"{where}: 'command' must be a non-empty list of strings")
        problem = argv_problem(argv)
        if problem:
            raise InputError(f"{where}: 'command' {problem}")
        sandbox = parse_sandbox(spec.get("sandbox", False), where, folder)
        cpus = spec.get("cpus", 1)
        if isinstance(cpus, bool) or not isinstance(cpus, int | float) or not 0 < cpus < 1e6:
            raise InputError(f"{where}: cpus must be a number above 0 (CPUs per attempt on Ray)")
        return AgentVersion(
            agent, number, folder, command=tuple(argv), price=price, sandbox=sandbox, cpus=cpus
        )
    for key in ("sandbox", "cpus"):
        if key in spec:
            raise InputError(f"{where}: {key} goes only with command")
    openai = _parse_openai(spec["openai"], where)
    tools, max_steps = _tools(spec, where, folder)
    return AgentVersion(
        agent, number, folder, openai=openai, price=price, tools=tools, max_steps=max_steps
    )


def _tools(spec: dict[str, Any], where: str, folder: Path) -> tuple[ToolsFile | None, int]:
    """An `openai` version's ``tools = "tools.toml"`` (relative to the agents file), read and
    checked, and its ``max_steps``."""
    max_steps = spec.get("max_steps", MAX_STEPS)
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or not 1 <= max_steps <= 1000:
        raise InputError(f"{where}: max_steps must be a whole number from 1 to 1000")
    if "tools" not in spec:
        if "max_steps" in spec:
            raise InputError(f"{where}: max_steps goes only with tools")
        return None, max_steps
    name = spec["tools"]
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: tools must be the path of a tools file (tools.toml)")
    path = folder / name
    if not path.is_file():
        raise InputError(f"{where}: tools: no such file {name!r} (relative to the agents file)")
    return load_tools(path, f"{where}: tools {name}"), max_steps


_PRICE_KEYS = ("input_per_mtok", "output_per_mtok")


def _price(table: Any, where: str) -> Price:
    """``price = { input_per_mtok = 0.15, output_per_mtok = 0.60 }``: both, numbers >= 0, exact.

    A TOML float is read back as the shortest text that is it (``repr``), which is what
    was written for any price of up to 15 significant digits: 0.15 means 15/100.
    """
    shape = f"{where}: 'price' must be {{ input_per_mtok = N, output_per_mtok = N }}"
    if not isinstance(table, dict):
        raise InputError(shape)
    _no_unknown_keys(table, _PRICE_KEYS, f"{where}: price")
    values = []
    for key in _PRICE_KEYS:
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(f"{shape} (missing or not a number: {key!r})")
        try:
            values.append(parse_price(repr(value)))
        except InputError as exc:
            raise InputError(f"{where}: price {key!r} {exc}") from None
    return Price(*values)


def _parse_openai(table: Any, where: str) -> OpenAISpec:
    """The ``openai = { base_url, model, system?, api_key_env? }`` table, validated."""
    if not isinstance(table, dict):
        raise InputError(f"{where}: 'openai' must be a table {{ base_url, model, ... }}")
    _no_unknown_keys(table, _OPENAI_KEYS, f"{where}: openai")
    for required in ("base_url", "model"):
        if required not in table:
            raise InputError(f"{where}: openai is missing {required!r}")
    for key in _OPENAI_TEXT_KEYS:
        if key in table and (not isinstance(table[key], str) or not table[key]):
            raise InputError(f"{where}: openai {key!r} must be a non-empty string")
    base_url, timeout = table["base_url"], table.get("timeout")
    problem = address_problem(base_url, _BASE_URL_CREDENTIALS)
    if problem:
        raise InputError(f"{where}: openai 'base_url': {problem}")
    return OpenAISpec(
        base_url=base_url,
        model=table["model"],
        system=table.get("system"),
        api_key_env=table.get("api_key_env"),
        params=_params(table.get("params", {}), where),
        timeout=None
        if timeout is None
        else positive_seconds(timeout, f"{where}: openai 'timeout'"),
    )


def _params(params: Any, where: str) -> dict[str, Any]:
    """The ``params`` table: any Chat Completions body keys but model/messages, JSON values."""
    if not isinstance(params, dict):
        raise InputError(f"{where}: openai 'params' must be a table, e.g. {{ temperature = 0 }}")
    for key in _OWN_BODY_KEYS:
        if key in params:
            raise InputError(f"{where}: openai 'params' may not set {key!r} (it is set for you)")
    try:
        json.dumps(params, allow_nan=False)
    except (TypeError, ValueError):
        raise InputError(
            f"{where}: openai 'params' must hold JSON values (quote dates, no nan/inf)"
        ) from None
    return params


def _no_unknown_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    """Refuse a key the format does not have (a typo would otherwise be silently ignored)."""
    for key in table:
        if key not in allowed:
            expected = ", ".join(allowed)
            raise InputError(f"{where}: unknown key {key!r} (expected: {expected})")
