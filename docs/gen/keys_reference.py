"""The app's keys page, made from the ``BINDINGS`` of its app, screens and widgets.

Every module under ``passk_tui.tui`` is imported and every App, Screen and Widget class
defined there with bindings is read, its base classes' bindings merged as Textual merges
them (a subclass's key wins). A screen is listed when no other screen of ours extends it;
so a screen added, moved into a folder, or given a key reaches the page with no edit here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget


def _classes() -> Iterator[type[Any]]:
    """Every class defined in a module of ``passk_tui.tui``, once, in module order."""
    import passk_tui.tui as tui

    seen: set[type[Any]] = set()
    names = sorted(info.name for info in pkgutil.walk_packages(tui.__path__, "passk_tui.tui."))
    for name in names:
        if name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == name and value not in seen:
                seen.add(value)
                yield value


def bindings_of(cls: type[Any]) -> list[Binding]:
    """The class's bindings with its bases' (ours and Textual's), a key bound again winning."""
    merged: dict[str, Binding] = {}
    for klass in reversed(cls.__mro__):
        for binding in Binding.make_bindings(klass.__dict__.get("BINDINGS", [])):
            merged[binding.key] = binding
    return list(merged.values())


def _title(cls: type[Any]) -> str:
    if issubclass(cls, App):
        return "Everywhere"
    name = re.sub(r"(Screen|App)$", "", cls.__name__) or cls.__name__
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)


def _rows(bindings: list[Binding], display: App[Any]) -> list[str]:
    """A table row per named action (a tooltip says what it does; one without is a cursor
    move), its keys together, as help and the command palette list them."""
    rows: dict[tuple[str, str], tuple[list[str], str]] = {}
    for binding in bindings:
        if not (binding.tooltip and binding.description):
            continue
        name = binding.description
        keys, _ = rows.setdefault((name, binding.action), ([], binding.tooltip))
        keys.append(display.get_key_display(binding))
    return [
        f"| {' '.join(f'`{key}`' for key in keys)} | {name} | {_cell(does)} |"
        for (name, _), (keys, does) in rows.items()
    ]


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _section(level: str, cls: type[Any], rows: list[str]) -> str:
    return f"{level} {_title(cls)}\n\n{HEADER}" + "\n".join(rows) + "\n"


HEADER = "| Keys | Action | What it does |\n| --- | --- | --- |\n"


def _moves(widgets: list[type[Any]], display: App[Any]) -> str:
    """The keys that move a cursor (bindings without a tooltip), once each, from every widget."""
    moves: dict[str, str] = {}
    for widget in widgets:
        for binding in bindings_of(widget):
            if not binding.tooltip:
                moves.setdefault(display.get_key_display(binding), binding.description)
    rows = [f"| `{key}` | {name} |" for key, name in moves.items()]
    return "| Keys | Moves |\n| --- | --- |\n" + "\n".join(rows) + "\n"


def page() -> str:
    """The generated part of the keys page: everywhere, each screen, then the widgets."""
    classes = list(_classes())
    display: App[Any] = App()
    ours = [c for c in classes if issubclass(c, App | Screen | Widget) and bindings_of(c)]
    apps = [c for c in ours if issubclass(c, App) and "BINDINGS" in c.__dict__]
    screens = [
        c for c in ours
        if issubclass(c, Screen) and not any(o is not c and issubclass(o, c) for o in ours)
    ]  # fmt: skip
    widgets = [
        c for c in ours
        if issubclass(c, Widget) and not issubclass(c, Screen) and "BINDINGS" in c.__dict__
    ]  # fmt: skip
    parts = [_section("##", app, _rows(bindings_of(app), display)) for app in apps]
    for screen in sorted(screens, key=_title):
        if rows := _rows(bindings_of(screen), display):
            parts.append(_section("##", screen, rows))
    parts.append(
        "## Inside the screens\n\nThe lists, tables and fields the screens are made of: "
        "their keys work wherever that part has the focus.\n"
    )
    for widget in widgets:
        if rows := _rows(bindings_of(widget), display):
            parts.append(_section("###", widget, rows))
    parts.append("### Moving the cursor\n\n" + _moves(widgets, display))
    return "\n".join(parts)
