"""A screen's actions in words, read from its bindings: what the command palette and `?` list.

A screen's ``BINDINGS`` (with its widgets' and the app's) is the one table of its keys:
``description`` names the action in words (the keys line's label and the palette's entry),
``tooltip`` says what it does (the palette's help line and the help screen), and ``show``
puts it on the keys line. A binding without a tooltip is a cursor move (up, a page, the
first row: Textual's widgets bind many), which neither lists; each of ours has one
(tests/app/test_keys_everywhere.py). A screen that disables an action for a reason the user
can act on says it in ``unavailable(action)``: the palette keeps the entry with the reason as
its help (choosing it shows the reason), and help writes it after ``not now``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Protocol, runtime_checkable

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


@runtime_checkable
class SaysUnavailable(Protocol):
    """A screen that says why it disables an action (History, Results)."""

    def unavailable(self, action: str) -> str | None:
        """Why ``action`` is disabled now, in words; None when it is not (or no reason is told)."""
        ...


def unavailable(screen: Screen[Any], action: str) -> str | None:
    """Why the screen disables ``action`` now, when it says (its ``unavailable`` method)."""
    return screen.unavailable(action) if isinstance(screen, SaysUnavailable) else None


def screen_commands(
    screen: Screen[Any], run_action: Callable[..., object]
) -> Iterator[SystemCommand]:
    """Every enabled action of the screen, named in words, with what it does and its key; a
    disabled one whose screen says why, with the reason (chosen, it shows it)."""
    app = screen.app
    for _, active in named_bindings(screen):
        binding = active.binding
        if binding.description in _ALREADY_LISTED:
            continue
        if active.enabled:
            yield SystemCommand(
                binding.description,
                f"{binding.tooltip} (key {app.get_key_display(binding)})",
                partial(run_action, binding.action, active.node),
            )
        elif (why := unavailable(screen, binding.action)) is not None:
            yield SystemCommand(
                binding.description,
                f"Not here: {why}",
                partial(screen.notify, why, severity="warning", timeout=10, markup=False),
            )


def key_rows(screen: Screen[Any]) -> list[tuple[str, str, str, bool, str | None]]:
    """(keys, name, what it does, enabled, why not) of each action, its keys together
    (``? f1``); why not: what the screen says of an action it disables, if anything."""
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
        (" ".join(keys), name, what, enabled, None if enabled else unavailable(screen, action))
        for (name, action), (keys, what, enabled) in rows.items()
    ]
