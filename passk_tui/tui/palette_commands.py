"""The command palette's entries for a screen: its actions worth naming, not cursor moves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.app import SystemCommand
from textual.screen import Screen

#: Entries the app's own commands already give.
_ALREADY_LISTED = frozenset({"Quit", "Commands"})


def screen_commands(
    screen: Screen[Any], run_action: Callable[..., object]
) -> Iterator[SystemCommand]:
    """Each enabled binding the footer shows or that has a tooltip, once per description."""
    seen = set(_ALREADY_LISTED)
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not (binding.show or binding.tooltip) or not binding.description:
            continue
        if not active.enabled or binding.description in seen:
            continue
        seen.add(binding.description)
        yield SystemCommand(
            binding.description,
            f"{binding.tooltip or binding.description} (key: {key})",
            partial(run_action, binding.action, active.node),
        )
