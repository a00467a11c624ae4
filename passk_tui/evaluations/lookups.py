"""What a face asks about the settings before a run: the cases file, the local agents, the stack;
and the cases and the target a run of the settings reads and runs.

The Configure form asks these as you type (a screen never reads a file or builds a
target itself). The files are read again only once they change.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.price import Price
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case, load_cases
from passk_tui.core.run.target import Target

if TYPE_CHECKING:
    from passk_tui.targets.agents_file import AgentVersion


def count_cases(path: Path, completion_only: bool) -> int:
    """How many cases the file holds; InputError says what is wrong with it."""
    cases = _cached(
        ("cases", completion_only),
        path,
        lambda p: load_cases(p, completion_only=completion_only),
    )
    return len(cases)


def local_agents(explicit: Path | None) -> tuple[Path, dict[str, list[int]]]:
    """The local agents file in use (``explicit``, else the default) and each agent's versions.

    InputError says why there is no usable file.
    """
    path, agents = _agents(explicit)
    return path, {name: list(versions) for name, versions in agents.items()}


def local_price(explicit: Path | None, agent: str, version: int) -> Price | None:
    """The price the local agents file gives this version; None: none, or no such version.

    InputError says why there is no usable file (``local_agents`` has said it already).
    """
    spec = _agents(explicit)[1].get(agent, {}).get(version)
    return None if spec is None else spec.price


def _agents(explicit: Path | None) -> tuple[Path, dict[str, dict[int, AgentVersion]]]:
    from passk_tui.targets.agents_file import find_agents_file, load_agents

    path = find_agents_file(explicit)
    return path, _cached(("agents",), path, load_agents)


#: The files ``passk-tui init`` writes, as Configure finds them in the working folder.
WORKING_CASES = "cases.toml"
WORKING_AGENTS = "agents.toml"


def working_folder_fields(folder: Path) -> dict[str, str]:
    """Configure's fields from the files in ``folder`` (``passk-tui init`` writes them): its
    cases.toml, its agents.toml, and when that file names one agent, the agent and its newest
    version. A file that does not read fills nothing (the form says what is wrong once used)."""
    fields: dict[str, str] = {}
    if (folder / WORKING_CASES).is_file():
        fields["cases"] = WORKING_CASES
    if (folder / WORKING_AGENTS).is_file():
        fields["agents"] = WORKING_AGENTS
        from passk_tui.targets.agents_file import load_agents

        try:
            agents = load_agents(folder / WORKING_AGENTS)
        except InputError:
            return fields
        if len(agents) == 1:
            ((name, versions),) = agents.items()
            fields["agent"] = name
            if versions:
                fields["version"] = str(max(versions))
    return fields


async def stack_versions(stack: str, key: str | None, agent: str) -> list[int] | str:
    """The versions the stack knows of ``agent``, or why it could not say (one line)."""
    from passk_tui.targets.stack import StackTarget

    target = StackTarget(stack, key, agent, 0, "ev_configure", 1)
    try:
        return await target.versions()
    except (RunError, InputError) as exc:
        return str(exc)
    finally:
        await target.aclose()


_CACHE: dict[tuple[Any, ...], Any] = {}


def _stamp(path: Path) -> tuple[Any, ...]:
    """What identifies a file's content cheaply, so typing does not re-read unchanged files."""
    try:
        info = os.stat(path)
    except OSError:
        return (str(path), None)
    return (str(path.resolve()), info.st_mtime_ns, info.st_size)


def _cached(kind: tuple[Any, ...], path: Path, load: Callable[[Path], Any]) -> Any:
    """``load(path)``, reused while the file is unchanged; errors are not cached."""
    key = (*kind, *_stamp(path))
    if key not in _CACHE:
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = load(path)
    return _CACHE[key]


def load_suite(settings: Settings) -> list[Case]:
    return load_cases(Path(settings.cases_path), completion_only=settings.completion_only)


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
