"""Several targets in one evaluation (a matrix): ``--version 1,2,3`` and ``--agent a,b`` read.

A comma in either flag makes a list; every agent runs at every version, agents first
(``--agent a,b --version 1,2``: a v1, a v2, b v1, b v2). The first target is the one
each other is compared against. A target given twice would be measured twice and
compared with itself, so a repeat is bad input. Pure: names and numbers only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import parse_agent_name, parse_version

T = TypeVar("T")


class MatrixTarget(NamedTuple):
    """One agent at one version: a column of the matrix."""

    agent: str
    version: int


def parse_list(text: str, parse: Callable[[str], T]) -> tuple[T, ...]:
    """Comma-separated values, each parsed; InputError (naming no flag) on an empty item or a
    repeat, which names the value and the list."""
    items = [item.strip() for item in text.split(",")]
    values: list[T] = []
    for item in items:
        if not item:
            raise InputError(f"an empty item in the list {text!r}")
        value = parse(item)
        if value in values:
            raise InputError(f"{item} is given twice in the list {text!r}: each target once")
        values.append(value)
    return tuple(values)


def parse_versions(text: str) -> tuple[int, ...]:
    """``1,2,3`` (or one version) as versions."""
    return parse_list(text, parse_version)


def parse_agents(text: str) -> tuple[str, ...]:
    """``a,b`` (or one agent) as agent names."""
    return parse_list(text, parse_agent_name)


def matrix_targets(agents: Sequence[str], versions: Sequence[int]) -> list[MatrixTarget]:
    """Every agent at every version, agents first, in the order given."""
    return [MatrixTarget(agent, version) for agent in agents for version in versions]


def target_labels(targets: Sequence[MatrixTarget]) -> list[str]:
    """How each target is named in headers and lines: ``v2`` when only versions differ, the
    agent when only agents do, else ``a v2``."""
    agents = {t.agent for t in targets}
    versions = {t.version for t in targets}
    if len(agents) == 1:
        return [f"v{t.version}" for t in targets]
    if len(versions) == 1:
        return [t.agent for t in targets]
    return [f"{t.agent} v{t.version}" for t in targets]


def target_kind(targets: Sequence[MatrixTarget]) -> str:
    """What one target is, in a line about each: ``version`` when only versions differ,
    ``agent`` when only agents do, else ``target`` (as ``target_labels`` names them)."""
    if len({t.agent for t in targets}) == 1:
        return "version"
    if len({t.version for t in targets}) == 1:
        return "agent"
    return "target"
