"""``evaluate([a, b, ...])``: a list of agents is a matrix, each agent its own target.

The list holds agents of one kind: local agents' names, ``Stack``s on one stack, or
Python callables (each stored under its ``__name__``, which must differ). Their names go
into the validator as ``--agent a,b`` would, so a repeat or a missing local agent is
the CLI's one line; callables get one target factory that picks each target's own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from passk_tui.api.stack import Stack
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.text.mentions import type_name
from passk_tui.evaluations.recorded import TargetFactory


def version_text(version: int | str | Sequence[int] | None) -> int | str | None:
    """``version`` as the validator reads it: ``3``, ``"1,2,3"``, or ``[1, 2, 3]`` as the
    list's text (its items are checked as ``--version 1,2,3``'s are)."""
    if isinstance(version, Sequence) and not isinstance(version, str):
        return ",".join(str(v) for v in version)
    return version


def list_texts(
    agents: Sequence[Any], name: str | None, texts: dict[str, object]
) -> TargetFactory | None:
    """Fill the agent's fields of ``texts`` for a list of agents; the callables' target factory."""
    if name is not None:
        raise InputError("name: a list of agents is stored under each agent's own name")
    if not agents:
        raise InputError("agent: an empty list of agents")
    if all(isinstance(a, str) for a in agents):
        texts["agent"] = ",".join(agents)
        return None
    if all(isinstance(a, Stack) for a in agents):
        stacks = {(a.url, a.key) for a in agents}
        if len(stacks) > 1:
            raise InputError("agent: every Stack of a list must be the same stack (URL and key)")
        first = agents[0]
        texts.update(agent=",".join(a.agent_id for a in agents), stack=first.url)
        texts["key"] = first.key or os.environ.get("PASSK_KEY") or None
        return None
    if all(callable(a) and not isinstance(a, str | Stack) for a in agents):
        return _callables(agents, texts)
    kinds = ", ".join(dict.fromkeys(type_name(a) for a in agents))
    raise InputError(
        f"agent: a list holds local agents' names, Stacks or callables, one kind; got {kinds}"
    )


def _callables(agents: Sequence[Callable[..., Any]], texts: dict[str, object]) -> TargetFactory:
    from passk_tui.targets.callable import CallableTarget

    by_name = {getattr(a, "__name__", None) or type(a).__name__: a for a in agents}
    if len(by_name) < len(agents):
        raise InputError("agent: two callables of the list share a __name__; name them apart")
    texts["agent"] = ",".join(by_name)
    texts["version"] = texts["version"] or "0"

    def target_for(evaluation_id: str, settings: Settings) -> CallableTarget:
        return CallableTarget(by_name[settings.agent], evaluation_id, settings.timeout)

    return target_for
