"""The layers hold: arrows go down only and no module reaches itself again through others.

Read from the source with ``ast``, so every import counts: those inside functions (lazy imports
for a fast start) and those under ``TYPE_CHECKING`` as much as those at the top of a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support import ROOT

PACKAGE = ROOT / "passk_tui"

#: What each layer may import from the package, besides itself (STYLE.md, "The layout").
#: cli, tui and api are the faces; evaluations the service under them; then store, reports,
#: targets and imports (other tools' logs read as attempts); core at the bottom.
MAY_IMPORT = {
    "core": set(),
    "targets": {"core"},
    "imports": {"core"},
    "store": {"core"},
    "reports": {"core", "store"},
    "evaluations": {"core", "targets", "imports", "store", "reports"},
    "tui": {"core", "targets", "store", "reports", "evaluations"},
    "cli": {"core", "targets", "imports", "store", "reports", "evaluations", "tui"},
    "api": {"core", "targets", "store", "reports", "evaluations"},
}
#: Third-party and standard modules the pure core must never load: no UI, no network, no SQL.
NOT_IN_CORE = {"textual", "rich", "httpx", "httpx_aiohttp", "aiohttp", "sqlite3", "textual_serve"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """Every module ``name`` imports anywhere in its file (ours by full name, others by top name)."""
    found: set[str] = set()
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                ).strip(".")
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else base)
    return {item if item.startswith("passk_tui") else item.split(".")[0] for item in found}


GRAPH = {name: {i for i in imports_of(name) if i in MODULES and i != name} for name in MODULES}


def layer(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in MAY_IMPORT else None


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a layer into one it may not import."""
    return sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if (own := layer(name)) is not None
        and (other := layer(target)) not in (own, None)
        and other not in MAY_IMPORT[own]
    )


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components: each with more than one module is a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while (member := stack.pop()) != node:
                on_stack.discard(member)
                component.append(member)
            on_stack.discard(node)
            if component:
                found.append(sorted([node, *component]))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def test_every_arrow_goes_down() -> None:
    assert arrows_up(GRAPH) == []


def test_no_circle_anywhere() -> None:
    assert circles(GRAPH) == []


#: Core's own rooms, bottom first: a module imports only from its room and those before it.
#: String helpers at the bottom, then one attempt's domain, what an evaluation is given, the
#: sandbox (which runs programs), the check kinds, the statistics by question, the run machinery, the renderers, and the one reading of an evaluation on top.
CORE_ROOMS = [
    "core.errors",
    "core.version",
    "core.text",
    "core.transcript",
    "core.attempt",
    "core.inputs",
    "core.sandbox",
    "core.checks",
    "core.stats.rates",
    "core.stats.plan",
    "core.stats.gating",
    "core.stats.comparing",
    "core.stats",
    "core.stats.costs",
    "core.run",
    "core.render",
    "core.reading",
]


def core_room(name: str) -> int | None:
    """The index in CORE_ROOMS of the room ``name`` sits in (the longest that holds it)."""
    short = name.removeprefix("passk_tui.")
    rooms = [
        i for i, room in enumerate(CORE_ROOMS) if short == room or short.startswith(room + ".")
    ]
    return max(rooms, key=lambda i: len(CORE_ROOMS[i]), default=None)


def core_arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Every import inside core from a room into one above it."""
    return sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if (own := core_room(name)) is not None
        and (other := core_room(target)) is not None
        and other > own
    )


def test_core_rooms_hold_their_order() -> None:
    assert core_arrows_up(GRAPH) == []


def test_every_core_module_has_a_room() -> None:
    assert [
        n for n in MODULES if layer(n) == "core" and n != "passk_tui.core" and core_room(n) is None
    ] == []


def test_no_folder_holds_more_than_15_modules() -> None:
    """Rooms by feature: a folder past 15 modules side by side is several ideas."""
    crowded = {
        str(folder.relative_to(PACKAGE.parent)): count
        for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]
        if (count := len([m for m in folder.glob("*.py") if m.name != "__init__.py"])) > 15
    }
    assert crowded == {}


def test_core_loads_no_ui_network_or_sql() -> None:
    wrong = sorted(
        f"{name} -> {third}"
        for name in MODULES
        if layer(name) == "core"
        for third in imports_of(name) & NOT_IN_CORE
    )
    assert wrong == []


def test_the_front_door_loads_the_api_only_when_asked() -> None:
    """``passk_tui/__init__.py`` names the API for type checkers only; at run time each name is
    imported on first use, so ``--help`` and an unmarked pytest session pay nothing for it."""
    top = ast.parse(MODULES["passk_tui"].read_text(encoding="utf-8"))
    eager = [
        node
        for node in top.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("passk_tui.api")
    ]
    assert eager == []
    assert "passk_tui.api.evaluate" in GRAPH["passk_tui"]  # under TYPE_CHECKING, still read


def test_the_graph_is_read_whole() -> None:
    """Lazy imports inside functions count: the app is imported by the CLI only that way."""
    assert "passk_tui.tui.app.launch" in GRAPH["passk_tui.cli.main"]
    assert len(GRAPH) > 100


def test_the_checks_find_an_arrow_up_and_a_circle() -> None:
    """Not vacuous: an arrow up and a circle, added to a copy of the real graph, are found."""
    graph = {name: set(targets) for name, targets in GRAPH.items()}
    graph["passk_tui.core.stats.rates.figures"].add("passk_tui.store.database")
    graph["passk_tui.store.database"].add("passk_tui.core.stats.rates.figures")
    assert arrows_up(graph) == ["passk_tui.core.stats.rates.figures -> passk_tui.store.database"]
    graph["passk_tui.core.text.amounts"].add("passk_tui.core.render.table")
    assert core_arrows_up(graph) == ["passk_tui.core.text.amounts -> passk_tui.core.render.table"]
    pair = {"passk_tui.core.stats.rates.figures", "passk_tui.store.database"}
    assert any(pair <= set(circle) for circle in circles(graph))
