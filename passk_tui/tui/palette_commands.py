"""A screen's actions in words, read from its bindings: what the command palette and `?` list.

A screen's ``BINDINGS`` (with its widgets' and the app's) is the one table of its keys:
``description`` names the action in words (the keys line's label and the palette's entry),
``tooltip`` says what it does (the palette's help line and the help screen), and ``show``
puts it on the keys line. A binding without a tooltip is a cursor move (up, a page, the
first row: Textual's widgets bind many), which neither lists; each of ours has one
(tests/app/test_keys_everywhere.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.app import SystemCommand
from textual.binding import ActiveBinding
from textual.screen import Screen

#: Entries the app's own commands already give.
_ALREADY_LISTED = frozenset({"Quit", "Commands"})


def named_bindings(screen: Screen[Any]) -> Iterator[tuple[str, ActiveBinding]]:
    """Each of the screen's actions (no cursor move), once per description, in the order its
    keys are looked up: the focused widget's first, then the screen's, the app's last."""
    seen: set[str] = set()
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not binding.tooltip or not binding.description or binding.description in seen:
            continue
        seen.add(binding.description)
        yield key, active


def screen_commands(
    screen: Screen[Any], run_action: Callable[..., object]
) -> Iterator[SystemCommand]:
    """Every enabled action of the screen, named in words, with what it does and its key."""
    app = screen.app
    for _, active in named_bindings(screen):
        binding = active.binding
        if not active.enabled or binding.description in _ALREADY_LISTED:
            continue
        yield SystemCommand(
            binding.description,
            f"{binding.tooltip} (key {app.get_key_display(binding)})",
            partial(run_action, binding.action, active.node),
        )


def key_rows(screen: Screen[Any]) -> list[tuple[str, str, str, bool]]:
    """(keys, name, what it does, enabled) of each action, its keys together (``? f1``)."""
    app = screen.app
    rows: dict[tuple[str, str], tuple[list[str], str, bool]] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.tooltip or not binding.description:
            continue
        keys = rows.setdefault(
            (binding.description, binding.action), ([], binding.tooltip, active.enabled)
        )[0]
        display = app.get_key_display(binding)
        if display not in keys:
            keys.append(display)
    return [
        (" ".join(keys), name, what, enabled) for (name, _), (keys, what, enabled) in rows.items()
    ]
